// The bearer token that authenticates clients of `hptune serve`, and where
// a user's token lives.
//
// A server runs programs for whoever submits a job, so every call needs a
// token (docs/operations.md, "Who may submit jobs"). Unless given
// --token-file, `hptune serve` uses the token in its user's default token
// file, creating the file (mode 0600, in a directory of mode 0700) with 256
// random bits on the first start. Every hptune client of the same user finds
// the token there when it has no --token-file or $HPTUNE_TOKEN; another user
// cannot read it, so cannot submit. The default file is
//   $HPTUNE_CONFIG_DIR/token, else $XDG_CONFIG_HOME/hptune/token,
//   else $HOME/.config/hptune/token.
// Used by the serve command and by the client commands' connection options
// (src/cli/client/connection.h), on the Env they are given. Free functions;
// thread-safe.
#ifndef HPTUNE_CLI_TOKEN_FILE_H_
#define HPTUNE_CLI_TOKEN_FILE_H_

#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "src/cli/flags.h"

namespace hptune::cli {

// The user's default token file. FailedPrecondition when none of
// HPTUNE_CONFIG_DIR, XDG_CONFIG_HOME and HOME is set.
absl::StatusOr<std::string> DefaultTokenFile(const EnvLookup& env);

// The token in the file at `path`, surrounding whitespace removed.
// NotFound when the file cannot be read; InvalidArgument when it holds no
// token or more than 4 KiB. A file that other users can read gets a warning
// on `warnings` naming its mode: they could submit jobs too.
absl::StatusOr<std::string> ReadTokenFile(Env& env, const std::string& path,
                                          std::ostream& warnings);

// The token of the default file at `path`, created first when missing:
// 64 hexadecimal digits of Env::RandomSeed, written with mode 0600 by
// Env::CreateFileAtomically, so two servers starting at once agree on one
// token. The directory is created with mode 0700. FailedPrecondition,
// naming the path and the reason, when it cannot be created or read.
absl::StatusOr<std::string> LoadOrCreateTokenFile(Env& env,
                                                  const std::string& path,
                                                  std::ostream& warnings);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_TOKEN_FILE_H_
