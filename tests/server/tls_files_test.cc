// The serve command's check of its TLS files: each mistake is named, with
// the flag and the file, before gRPC could report it as a busy port.
#include "src/server/tls_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/testing/self_signed.h"
#include "tests/testing/status_matchers.h"

namespace hptune::server {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

using ::hptune_testing::PemPair;
using ::hptune_testing::SelfSignedPair;

TlsFiles Files(const std::string& cert_pem, const std::string& key_pem) {
  return {.cert_path = "c.pem",
          .cert_pem = cert_pem,
          .key_path = "k.pem",
          .key_pem = key_pem};
}

TEST(CheckTlsFilesTest, AMatchingPairIsAccepted) {
  PemPair pair = SelfSignedPair();
  EXPECT_OK(CheckTlsFiles(Files(pair.cert_pem, pair.key_pem)));
}

TEST(CheckTlsFilesTest, EachMistakeNamesTheFlagAndTheFile) {
  PemPair one = SelfSignedPair();
  PemPair other = SelfSignedPair();
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
  PemPair old = SelfSignedPair(-10, -1);
  EXPECT_THAT(CheckTlsFiles(Files(old.cert_pem, old.key_pem)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--tls-cert \"c.pem\": the certificate has expired"));
  PemPair early = SelfSignedPair(1, 10);
  EXPECT_THAT(
      CheckTlsFiles(Files(early.cert_pem, early.key_pem)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "--tls-cert \"c.pem\": the certificate is not valid yet"));
}

}  // namespace
}  // namespace hptune::server
