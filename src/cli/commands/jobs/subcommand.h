// What every `hptune jobs` subcommand shares: the parsed invocation with its
// server connection and JobService stub, the description the dispatcher
// (src/cli/commands/jobs_command.cc) parses and runs a subcommand by, and
// the small helpers their bodies call. One file of this directory per
// subcommand defines its description.
//
// Used only by src/cli/commands. Value types and free functions;
// thread-compatible.
#ifndef HPTUNE_CLI_COMMANDS_JOBS_SUBCOMMAND_H_
#define HPTUNE_CLI_COMMANDS_JOBS_SUBCOMMAND_H_

#include <chrono>
#include <functional>
#include <memory>
#include <ostream>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "src/cli/backend_flags.h"
#include "src/cli/client/connection.h"
#include "src/cli/client/reconnect.h"
#include "src/cli/flags.h"
#include "src/cli/output.h"

namespace hptune::cli::jobs {

using Stub = v1::JobService::Stub;

// One run of a subcommand: its flags, the server and how to print.
struct Invocation {
  ParsedArgs args;
  client::ServerConnection server;
  std::unique_ptr<Stub> stub;
  OutputFormat format = OutputFormat::kTable;
  std::chrono::seconds reconnect_window = client::kDefaultReconnectWindow;
  // `submit`'s repeatable Slurm flags, which ParseArgs does not keep.
  RepeatedSlurmFlags slurm_flags;
};

// A subcommand as the dispatcher sees it: the flags it takes (besides the
// connection flags), whether it takes a JOB, its --help and its body, which
// returns the exit code.
struct Subcommand {
  std::string name;
  std::string usage;
  std::set<std::string> value_flags;
  std::set<std::string> bool_flags;
  bool takes_job = true;
  std::function<int(Invocation&, std::ostream&, std::ostream&)> run;
};

// One per file of this directory.
Subcommand SubmitCommand();
Subcommand ListCommand();
Subcommand DescribeCommand();
Subcommand CancelCommand();
Subcommand DeleteCommand();
Subcommand UpdateCommand();
Subcommand StreamLogsCommand();
Subcommand WatchCommand();

// A subcommand's help: what it does and its own flags, then the server
// flags every subcommand has, then an example.
std::string Usage(const char* head, const char* example,
                  const char* more_flags = "");

// 0 for a job that SUCCEEDED, else 1.
int FinalStateExitCode(v1::Job::State state);

// Prints "hptune: <message>" to `err`; the exit code for `status`.
int FailStatus(const absl::Status& status, std::ostream& err);

grpc::Status GetJob(const Invocation& c, const std::string& job_id,
                    bool omit_trials, v1::Job& job);

// Follows the job until it ends (client::FollowJob), calling `on_event` for
// each change; `final_state` is the last job state seen.
grpc::Status Watch(const Invocation& c, const std::string& job_id,
                   const std::function<void(const v1::JobEvent&)>& on_event,
                   std::ostream& notices, v1::Job::State& final_state);

}  // namespace hptune::cli::jobs

#endif  // HPTUNE_CLI_COMMANDS_JOBS_SUBCOMMAND_H_
