// Command-line parsing for the `hptune` subcommands: positional arguments,
// `--name=value` / `--name value` flags, boolean `--name`, and everything
// after `--` kept verbatim (user args); and the environment lookup commands
// take so that tests can inject one. Used only by src/cli.
#ifndef HPTUNE_CLI_FLAGS_H_
#define HPTUNE_CLI_FLAGS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hptune::cli {

// Reads an environment variable; nullopt when unset. Injected for tests.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
// The process's own environment.
EnvLookup ProcessEnv();

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> flags;  // name without "--" -> value
  // The flags that may be given many times: every value, in order.
  std::map<std::string, std::vector<std::string>> repeated;
  std::vector<std::string> after_dashes;  // after a bare "--"

  std::optional<std::string> Get(const std::string& name) const;
  bool Has(const std::string& name) const { return flags.contains(name); }
  // A repeatable flag's values; none when it is not given.
  std::vector<std::string> GetAll(const std::string& name) const;
};

// `value_flags` take a value (a flag given twice keeps its last);
// `bool_flags` take none; `repeated_flags` take a value each time they are
// given, all kept. Any other flag is an InvalidArgument naming it.
absl::StatusOr<ParsedArgs> ParseArgs(
    const std::vector<std::string>& args,
    const std::set<std::string>& value_flags,
    const std::set<std::string>& bool_flags,
    const std::set<std::string>& repeated_flags = {});

// The value of flag `name`, which `args` must hold, as an Int within
// [min, max] (no upper bound without max). Otherwise InvalidArgument naming
// the flag, the range and the text: "--limit: expected an integer >= 1, got
// \"0\"". `what` is the range's noun ("whole seconds" reads better for a
// duration). Defined for int and int64_t.
template <typename Int>
absl::StatusOr<Int> IntegerFlag(const ParsedArgs& args, const std::string& name,
                                Int min, std::optional<Int> max = std::nullopt,
                                const char* what = "an integer");

// Removes every `--flag=VALUE` and `--flag VALUE` from `args` (up to a
// "--") and returns the values in order: for flags that may be given many
// times, which ParseArgs (one value per flag) does not keep.
std::vector<std::string> TakeRepeatedFlag(std::vector<std::string>& args,
                                          const std::string& flag);

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // The operation failed.
inline constexpr int kExitInvalid = 2;  // Invalid config or input data.
inline constexpr int kExitNotFound = 3;
inline constexpr int kExitUsage = 64;  // Bad command line (sysexits EX_USAGE).

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_FLAGS_H_
