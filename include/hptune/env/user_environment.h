// The environment variables that say who a process's user is (HOME, USER,
// LOGNAME), for a replica a root server runs as another user.
//
// Inherited from the server, they would be root's: a trainer run for alice
// would write its caches under /root (and fail) and call itself root, and
// libraries that ask for the user's name (PyTorch's getpass.getuser()) would
// read root's. Used by src/launch/local. Thread-safe.
#ifndef HPTUNE_ENV_USER_ENVIRONMENT_H_
#define HPTUNE_ENV_USER_ENVIRONMENT_H_

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace hptune {

// HOME, USER and LOGNAME of `uid` from the user database. A uid the
// database does not know gets `fallback_home` as HOME and its number as its
// name, so that nothing falls back to a lookup that fails.
std::map<std::string, std::string> UserEnvironment(
    uid_t uid, const std::filesystem::path& fallback_home);

// Whether an inherited variable names the server user's own places
// (XDG_RUNTIME_DIR, XDG_CACHE_HOME, ..., MAIL), which another user's
// process must not inherit.
bool IsServerUsersPlace(std::string_view name);

}  // namespace hptune

#endif  // HPTUNE_ENV_USER_ENVIRONMENT_H_
