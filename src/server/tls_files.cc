#include "src/server/tls_files.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace hptune::server {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

std::unique_ptr<BIO, BioFree> MemoryBio(const std::string& text) {
  return std::unique_ptr<BIO, BioFree>(
      BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// A password callback that gives none: an encrypted key fails to load
// instead of prompting on the terminal.
int NoPassword(char*, int, int, void*) { return 0; }

std::string Flag(const char* flag, const std::string& path) {
  return absl::StrCat(flag, " \"", path, "\"");
}

}  // namespace

absl::Status CheckTlsFiles(const TlsFiles& files) {
  const std::string cert_flag = Flag("--tls-cert", files.cert_path);
  const std::string key_flag = Flag("--tls-key", files.key_path);
  std::unique_ptr<X509, X509Free> cert(PEM_read_bio_X509(
      MemoryBio(files.cert_pem).get(), nullptr, NoPassword, nullptr));
  if (cert == nullptr) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat(cert_flag,
                     ": holds no PEM certificate (expected \"-----BEGIN "
                     "CERTIFICATE-----\")"));
  }
  std::unique_ptr<EVP_PKEY, KeyFree> key(PEM_read_bio_PrivateKey(
      MemoryBio(files.key_pem).get(), nullptr, NoPassword, nullptr));
  if (key == nullptr) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat(
        key_flag,
        ": holds no unencrypted PEM private key (expected \"-----BEGIN "
        "PRIVATE KEY-----\" or \"-----BEGIN RSA/EC PRIVATE KEY-----\")"));
  }
  if (X509_cmp_current_time(X509_get0_notAfter(cert.get())) < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(cert_flag, ": the certificate has expired"));
  }
  if (X509_cmp_current_time(X509_get0_notBefore(cert.get())) > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(cert_flag, ": the certificate is not valid yet"));
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat(
        key_flag, ": not the private key of the certificate in ", cert_flag));
  }
  return absl::OkStatus();
}

}  // namespace hptune::server
