// `hptune dashboard --db FILE [flags]`: serves the web dashboard of a study
// database read-only (src/dashboard), also while `hptune run` writes it,
// until SIGTERM or Ctrl-C. Used only by src/cli/main.cc.
#ifndef HPTUNE_CLI_COMMANDS_DASHBOARD_COMMAND_H_
#define HPTUNE_CLI_COMMANDS_DASHBOARD_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace hptune::cli {

int RunDashboardCommand(const std::vector<std::string>& args, std::ostream& out,
                        std::ostream& err);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_COMMANDS_DASHBOARD_COMMAND_H_
