// `hptune run CONFIG [flags] [-- user args]`: runs a whole tuning job in this
// process (SQLite file, local launcher), with live progress, then prints the
// trial table and the best trial. Ctrl-C cancels the job cleanly. Used only
// by src/cli/main.cc.
#ifndef HPTUNE_CLI_COMMANDS_RUN_COMMAND_H_
#define HPTUNE_CLI_COMMANDS_RUN_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace hptune::cli {

int RunRunCommand(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_COMMANDS_RUN_COMMAND_H_
