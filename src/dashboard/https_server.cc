#include "src/dashboard/https_server.h"

#include <httplib.h>
#include <openssl/pem.h>

#include "absl/strings/str_cat.h"

namespace hptune::dashboard {
namespace {

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using BioPtr = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;

BioPtr MemoryBio(std::string_view pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

}  // namespace

absl::StatusOr<std::unique_ptr<httplib::Server>> MakeHttpServer(
    std::string_view front, std::string_view cert_pem,
    std::string_view key_pem) {
  if (cert_pem.empty()) return std::make_unique<httplib::Server>();
  BioPtr cert_bio = MemoryBio(cert_pem);
  BioPtr key_bio = MemoryBio(key_pem);
  std::unique_ptr<X509, Freer<X509, X509_free>> cert(
      PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (cert == nullptr || key == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(front), "'s TLS certificate or key is not PEM"));
  }
  auto server = std::make_unique<httplib::SSLServer>(cert.get(), key.get());
  if (!server->is_valid()) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(front), "'s TLS certificate and key do not go together"));
  }
  return server;
}

}  // namespace hptune::dashboard
