// The `hptune` command: run tuning jobs, validate configs and inspect study
// databases.
#include <iostream>
#include <string>
#include <vector>

#include "src/cli/commands/dashboard_command.h"
#include "src/cli/commands/jobs_command.h"
#include "src/cli/commands/run_command.h"
#include "src/cli/commands/serve_command.h"
#include "src/cli/commands/store_command.h"
#include "src/cli/commands/store_commands.h"
#include "src/cli/commands/validate_command.h"
#include "src/cli/flags.h"

namespace {

constexpr char kUsage[] =
    "usage: hptune COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  run CONFIG [flags] [-- ARGS]    run a tuning job here, trials as local "
    "processes\n"
    "  validate CONFIG [--job-id ID]   check a trainingInput config (YAML or "
    "JSON)\n"
    "  jobs submit|list|describe|cancel|stream-logs|watch\n"
    "                                  training jobs on an `hptune serve`\n"
    "  studies list|describe           studies on the server, or in a study\n"
    "                                  database with --db\n"
    "  trials list|describe            trials of a study (server or --db)\n"
    "  store migrate --from URL --to URL\n"
    "                                  copy a whole store (SQLite, "
    "PostgreSQL)\n"
    "                                  into an empty one\n"
    "  serve [flags]                   serve the gRPC API (jobs, studies) on\n"
    "                                  127.0.0.1:7460, the dashboard on :7461\n"
    "  dashboard --db FILE             serve the web dashboard of a study\n"
    "                                  database, read-only\n"
    "  version                         print the version\n"
    "\n"
    "Run `hptune COMMAND --help` for a command's flags.\n"
    "Exit codes: 0 ok, 1 failed, 2 invalid input, 3 not found, 64 bad usage,\n"
    "69 no server reachable.\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return hptune::cli::kExitUsage;
  }
  const std::string command = args.front();
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "run") {
    return hptune::cli::RunRunCommand(rest, std::cout, std::cerr);
  }
  if (command == "serve") {
    return hptune::cli::RunServeCommand(rest, std::cout, std::cerr);
  }
  if (command == "dashboard") {
    return hptune::cli::RunDashboardCommand(rest, std::cout, std::cerr);
  }
  if (command == "validate") {
    return hptune::cli::RunValidateCommand(rest, std::cout, std::cerr);
  }
  if (command == "jobs") {
    return hptune::cli::RunJobsCommand(rest, std::cout, std::cerr);
  }
  if (command == "studies") {
    return hptune::cli::RunStudiesCommand(rest, std::cout, std::cerr);
  }
  if (command == "trials") {
    return hptune::cli::RunTrialsCommand(rest, std::cout, std::cerr);
  }
  if (command == "store") {
    return hptune::cli::RunStoreCommand(rest, std::cout, std::cerr);
  }
  if (command == "version" || command == "--version") {
    std::cout << "hptune " << HPTUNE_VERSION << "\n";
    return hptune::cli::kExitOk;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return hptune::cli::kExitOk;
  }
  std::cerr << "hptune: unknown command \"" << command << "\"\n" << kUsage;
  return hptune::cli::kExitUsage;
}
