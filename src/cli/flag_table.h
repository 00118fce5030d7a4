// The flags of the `hptune` commands as one table: each flag is one row,
// with its name, how it takes a value, the commands that take it, its text
// in their --help and, for a flag that overrides the config, the config's
// field and how the flag's value is applied. The command line is parsed
// from it (ParseFlags), each command's --help lists it (FlagUsage), and
// the config's overrides are applied from it (ApplyOverrides in
// spec_overrides.h): adding a flag is adding a row. Rows live beside the
// code that reads their values: the overrides' in spec_overrides.cc,
// gcloud's that hptune ignores in gcloud_flags.cc, the rest in
// flag_table.cc; AllFlags() is all three.
//
// In the table: `run`, `serve`, `dashboard`, and the overrides and backend
// flags of `jobs submit`, whose other flags, like those of the other
// commands, are still parsed from each command's own lists.
//
// Used only by src/cli. Thread-safety: constant data and pure functions.
#ifndef HPTUNE_SRC_CLI_FLAG_TABLE_H_
#define HPTUNE_SRC_CLI_FLAG_TABLE_H_

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "src/cli/flags.h"

namespace hptune::cli {

enum class FlagArity {
  kSwitch,    // --quiet (or --quiet=true|false)
  kValue,     // --db FILE; given twice, the last wins
  kRepeated,  // --slurm-option=OPT, every value kept
};

// The commands of the table, the bits of FlagSpec::commands.
enum FlagCommand : unsigned {
  kRunCommand = 1u << 0,
  kServeCommand = 1u << 1,
  kDashboardCommand = 1u << 2,
  kSubmitCommand = 1u << 3,  // `jobs submit`: its overrides and backend.
};
inline constexpr unsigned kRunAndSubmit = kRunCommand | kSubmitCommand;

// Where a flag that overrides the config applies its value.
struct OverrideTarget {
  const ParsedArgs& args;
  const std::string& flag;           // The row's name, for args and messages.
  const std::filesystem::path& cwd;  // Paths in flags are relative to it.
  JobSpec& job;
};
// InvalidArgument naming the flag and its value when the value is bad.
using ApplyOverride = absl::Status (*)(const OverrideTarget& target);

// The heading of the job's flags, which both files of rows use.
inline constexpr std::string_view kJobSection = "Job:";

struct FlagSpec {
  std::string_view name;  // Given as --name.
  FlagArity arity = FlagArity::kValue;
  std::string_view value;    // The usage's placeholder: "--db FILE".
  unsigned commands = 0;     // FlagCommand bits: who takes it.
  std::string_view section;  // The heading its command's usage lists it under.
  std::string_view help;     // One paragraph; FlagUsage wraps it.
  // FlagCommand bits of commands that parse it only to refuse it with a
  // message of their own (`jobs submit --slurm-allocation`); their usage
  // leaves it out.
  unsigned refused_by = 0;
  // A flag over the config: the field it overrides (docs/config.md's
  // name), and how.
  std::string_view field = {};
  ApplyOverride apply = nullptr;
  // gcloud's name of an hptune flag (--max-trial-count is --max-trials):
  // the hptune flag's name. The two are one flag: giving both is an error.
  std::string_view same_as = {};
};

// Every row: the overrides' (SpecOverrideRows), then the rest.
const std::vector<FlagSpec>& AllFlags();

// The rows `command` parses (those it refuses included), in table order.
std::vector<const FlagSpec*> FlagsOf(FlagCommand command);

// `args` parsed with `command`'s flags: ParseArgs' rules and messages
// ("unknown flag --x", "flag --db needs a value"), each repeatable flag's
// values in ParsedArgs::repeated.
absl::StatusOr<ParsedArgs> ParseFlags(const std::vector<std::string>& args,
                                      FlagCommand command);

// The names of `command`'s flags that take one value, for a command that
// adds flags of its own to ParseArgs (`jobs submit`).
std::set<std::string> ValueFlagNames(FlagCommand command);

// The names of `command`'s switches, for `jobs submit`, as above.
std::set<std::string> SwitchFlagNames(FlagCommand command);

// `command`'s flags as its --help lists them: under each section's heading
// (in the order sections first appear), "  --name VALUE" and the help, led
// by the field a flag overrides, wrapped to 78 columns.
std::string FlagUsage(FlagCommand command);

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_FLAG_TABLE_H_
