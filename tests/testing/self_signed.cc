#include "tests/testing/self_signed.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

namespace hptune_testing {
namespace {

template <typename Write>
std::string Pem(Write write) {
  BIO* bio = BIO_new(BIO_s_mem());
  write(bio);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string text(data, static_cast<size_t>(size));
  BIO_free(bio);
  return text;
}

}  // namespace

PemPair SelfSignedPair(long from_days, long to_days) {
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
  PemPair pair{
      .cert_pem = Pem([&](BIO* bio) { PEM_write_bio_X509(bio, cert); }),
      .key_pem = Pem([&](BIO* bio) {
        PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr,
                                 nullptr);
      })};
  X509_free(cert);
  EVP_PKEY_free(key);
  return pair;
}

}  // namespace hptune_testing
