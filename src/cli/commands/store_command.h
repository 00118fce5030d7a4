// `hptune store migrate`: copies a whole store (a SQLite file, a PostgreSQL
// database) into another, empty one, with CopyStore (store_copy.h), and
// prints the rows copied per table. Used only by src/cli/main.cc.
#ifndef HPTUNE_CLI_COMMANDS_STORE_COMMAND_H_
#define HPTUNE_CLI_COMMANDS_STORE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace hptune::cli {

// `args` are what follows `hptune store`; returns the exit code.
int RunStoreCommand(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_COMMANDS_STORE_COMMAND_H_
