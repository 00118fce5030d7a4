// `hptune studies list|describe` and `hptune trials list|describe`: read a
// study database (a SQLite file) and print what it holds. Used by main.cc.
#ifndef HPTUNE_CLI_STORE_COMMANDS_H_
#define HPTUNE_CLI_STORE_COMMANDS_H_

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

#endif  // HPTUNE_CLI_STORE_COMMANDS_H_
