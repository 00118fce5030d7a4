// Checks the PEM certificate and private key given to `hptune serve` before
// the server starts, so that a wrong file is reported as such, naming the
// flag and the file, instead of as a port that cannot be bound (gRPC only
// finds out when it builds the listener, and then says nothing useful).
// Used by the serve command. Pure functions over the files' text (OpenSSL
// parses them); thread-safe.
#ifndef HPTUNE_SRC_SERVER_TLS_FILES_H_
#define HPTUNE_SRC_SERVER_TLS_FILES_H_

#include <string>

#include "absl/status/status.h"

namespace hptune::server {

struct TlsFiles {
  std::string cert_path;  // For messages: "--tls-cert \"server.pem\"".
  std::string cert_pem;
  std::string key_path;
  std::string key_pem;
};

// OK when cert_pem holds a PEM certificate that is valid now and key_pem the
// PEM private key that belongs to it. InvalidArgument otherwise, naming the
// flag, the file and what is wrong: not a certificate, not a private key (or
// an encrypted one), expired or not yet valid, or a key of another
// certificate.
[[nodiscard]] absl::Status CheckTlsFiles(const TlsFiles& files);

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_TLS_FILES_H_
