// `hptune validate CONFIG [--job-id ID]`: checks a job config and prints what
// it would run (replicas, trainer, study, parameters), or every error in it.
//
// Called by the `hptune` binary's main; tests call it directly with string
// streams. Exit codes (src/cli/flags.h): 0 valid, 2 invalid or unreadable
// config, 64 bad usage.
#ifndef HPTUNE_CLI_COMMANDS_VALIDATE_COMMAND_H_
#define HPTUNE_CLI_COMMANDS_VALIDATE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace hptune::cli {

// `args` are the words after `validate`. The summary goes to `out`; errors,
// one per line as `field: message`, and usage problems go to `err`.
int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_COMMANDS_VALIDATE_COMMAND_H_
