// The serve command's check of its TLS files: each mistake is named, with
// the flag and the file, before gRPC could report it as a busy port.
#include "src/server/tls_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <string>

#include "tests/testing/status_matchers.h"

namespace hptune::server {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

// A self-signed P-256 certificate valid from `from_days` to `to_days`
// (relative to now), and its key, in PEM.
struct Pair {
  std::string cert_pem, key_pem;
};
std::string Pem(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string text(data, static_cast<size_t>(size));
  BIO_free(bio);
  return text;
}
Pair MakePair(long from_days = 0, long to_days = 1) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), from_days * 86400);
  X509_gmtime_adj(X509_getm_notAfter(cert), to_days * 86400);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_ASC,
      reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_sign(cert, key, EVP_sha256());
  BIO* cert_bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(cert_bio, cert);
  BIO* key_bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(key_bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  X509_free(cert);
  EVP_PKEY_free(key);
  return {Pem(cert_bio), Pem(key_bio)};
}

TlsFiles Files(const std::string& cert_pem, const std::string& key_pem) {
  return {.cert_path = "c.pem",
          .cert_pem = cert_pem,
          .key_path = "k.pem",
          .key_pem = key_pem};
}

TEST(CheckTlsFilesTest, AMatchingPairIsAccepted) {
  Pair pair = MakePair();
  EXPECT_OK(CheckTlsFiles(Files(pair.cert_pem, pair.key_pem)));
}

TEST(CheckTlsFilesTest, EachMistakeNamesTheFlagAndTheFile) {
  Pair one = MakePair();
  Pair other = MakePair();
  // The key given as the certificate.
  EXPECT_THAT(CheckTlsFiles(Files(one.key_pem, one.key_pem)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--tls-cert \"c.pem\": holds no PEM certificate "
                       "(expected \"-----BEGIN CERTIFICATE-----\")"));
  // The certificate given as the key.
  EXPECT_THAT(CheckTlsFiles(Files(one.cert_pem, one.cert_pem)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls-key \"k.pem\": holds no unencrypted "
                                 "PEM private key")));
  // Another certificate's key.
  EXPECT_THAT(CheckTlsFiles(Files(one.cert_pem, other.key_pem)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--tls-key \"k.pem\": not the private key of the "
                       "certificate in --tls-cert \"c.pem\""));
  EXPECT_THAT(CheckTlsFiles(Files("", one.key_pem)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("holds no PEM certificate")));
}

TEST(CheckTlsFilesTest, ACertificateOutsideItsValidityIsRefused) {
  Pair old = MakePair(-10, -1);
  EXPECT_THAT(CheckTlsFiles(Files(old.cert_pem, old.key_pem)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--tls-cert \"c.pem\": the certificate has expired"));
  Pair early = MakePair(1, 10);
  EXPECT_THAT(
      CheckTlsFiles(Files(early.cert_pem, early.key_pem)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "--tls-cert \"c.pem\": the certificate is not valid yet"));
}

}  // namespace
}  // namespace hptune::server
