// `hptune studies list|describe` and `hptune trials list|describe`: read the
// studies of an hptune server, or of a study database (a SQLite file, --db),
// and print them. Used only by src/cli/main.cc.
#ifndef HPTUNE_CLI_COMMANDS_STORE_COMMANDS_H_
#define HPTUNE_CLI_COMMANDS_STORE_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

namespace hptune::cli {

// `args` are what follows `hptune studies`; returns the exit code.
int RunStudiesCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err);
// `args` are what follows `hptune trials`; returns the exit code.
int RunTrialsCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_COMMANDS_STORE_COMMANDS_H_
