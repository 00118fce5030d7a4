// The flags that the two serving commands, `hptune serve` and
// `hptune dashboard`, share: the token clients must send (--token-file, else
// the user's default token file, created on the first start) and the TLS
// pair (--tls-cert, --tls-key), read through the Env given. Used by those
// commands only. Free functions; thread-safe.
#ifndef HPTUNE_CLI_SERVING_FLAGS_H_
#define HPTUNE_CLI_SERVING_FLAGS_H_

#include <ostream>
#include <string>

#include "hptune/env/env.h"
#include "src/cli/flags.h"

namespace hptune::cli {

struct ServingCredentials {
  std::string token;
  std::string token_file;  // Where the token was read, for the start line.
  // Both empty without TLS; the paths name the files in messages.
  std::string tls_cert_path;
  std::string tls_cert_pem;
  std::string tls_key_path;
  std::string tls_key_pem;
};

// The largest certificate or key file read (a PEM chain is a few KiB).
inline constexpr std::streamsize kMaxPemBytes = 1 << 20;

// Each reads its part of the credentials. On failure it writes
// "hptune COMMAND: why" to `err` and returns the exit code; kExitOk else.
//
// The TLS pair: kExitUsage when only one of --tls-cert and --tls-key is
// given, kExitInvalid for a file that cannot be read or is too large.
[[nodiscard]] int ReadTlsFlags(Env& env, const ParsedArgs& parsed,
                               const std::string& command,
                               ServingCredentials& credentials,
                               std::ostream& err);
// The token: kExitInvalid for a --token-file that cannot be read or holds
// no token, kExitFailure when the default token file cannot be created.
// Warnings (a token file other users can read) go to `err` too.
[[nodiscard]] int ReadTokenFlag(Env& env, const ParsedArgs& parsed,
                                const std::string& command,
                                ServingCredentials& credentials,
                                std::ostream& err);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_SERVING_FLAGS_H_
