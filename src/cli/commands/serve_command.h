// `hptune serve [flags]`: runs the gRPC server (StudyService, JobService,
// health, reflection) until SIGTERM or Ctrl-C. Used only by
// src/cli/main.cc.
#ifndef HPTUNE_CLI_COMMANDS_SERVE_COMMAND_H_
#define HPTUNE_CLI_COMMANDS_SERVE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace hptune::cli {

int RunServeCommand(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_COMMANDS_SERVE_COMMAND_H_
