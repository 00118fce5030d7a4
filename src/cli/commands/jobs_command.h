// `hptune jobs submit|list|describe|cancel|update|stream-logs|watch`: training
// jobs on an hptune server (`hptune serve`), as `gcloud ai-platform jobs` does
// them on AI Platform. Every subcommand has --help with its flags and an
// example, and is one file of src/cli/commands/jobs/; this is the dispatcher.
// Used only by src/cli/main.cc.
#ifndef HPTUNE_CLI_COMMANDS_JOBS_COMMAND_H_
#define HPTUNE_CLI_COMMANDS_JOBS_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace hptune::cli {

// `args` are what follows `hptune jobs`; returns the exit code (flags.h,
// src/cli/client/rpc_errors.h).
int RunJobsCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_COMMANDS_JOBS_COMMAND_H_
