#include "src/cli/commands/jobs_command.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "src/cli/backend_flags.h"
#include "src/cli/client/connection.h"
#include "src/cli/commands/jobs/subcommand.h"
#include "src/cli/flags.h"
#include "src/cli/output.h"

namespace hptune::cli {
namespace {

using jobs::FailStatus;
using jobs::Subcommand;

constexpr char kJobsUsage[] =
    "usage: hptune jobs COMMAND [ARGS] [flags]\n"
    "\n"
    "Training jobs on an hptune server (`hptune serve`), as `gcloud\n"
    "ai-platform jobs` runs them on AI Platform.\n"
    "\n"
    "Commands:\n"
    "  submit JOB --config FILE [flags] [-- ARGS]  start a tuning job\n"
    "  list [--filter F] [--limit N]               jobs, newest first\n"
    "  describe JOB                                state, trials, best trial\n"
    "  cancel JOB [--wait]                         stop a job and its trials\n"
    "  delete JOB                                  an ended job and its study\n"
    "  update JOB --update-labels K=V ...          change a job's labels\n"
    "  stream-logs JOB [--trial N] [--follow]      trainer output\n"
    "  watch JOB                                   state changes and trial\n"
    "                                              results until it ends\n"
    "\n"
    "Run `hptune jobs COMMAND --help` for a command's flags.\n"
    "Exit codes: 0 ok, 1 failed (or the job failed or was cancelled),\n"
    "2 invalid input, 3 not found, 64 bad usage, 69 no server reachable,\n"
    "75 timed out, 77 token refused.\n";

// --reconnect-seconds: whole seconds, 0 to a year.
absl::StatusOr<std::chrono::seconds> ReconnectWindow(const ParsedArgs& args) {
  constexpr int64_t kYear = 365 * 24 * 3600;
  HPTUNE_ASSIGN_OR_RETURN(
      int64_t seconds, IntegerFlag<int64_t>(args, "reconnect-seconds", 0, kYear,
                                            "whole seconds"));
  return std::chrono::seconds(seconds);
}

std::vector<Subcommand> Subcommands() {
  return {jobs::SubmitCommand(),     jobs::ListCommand(),
          jobs::DescribeCommand(),   jobs::CancelCommand(),
          jobs::DeleteCommand(),     jobs::UpdateCommand(),
          jobs::StreamLogsCommand(), jobs::WatchCommand()};
}

// --help or -h before any `--` (after it, they are the trainer's).
bool WantsHelp(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

int UsageError(const std::string& command, std::string_view message,
               const std::string& usage, std::ostream& err) {
  err << "hptune jobs" << (command.empty() ? "" : " " + command) << ": "
      << message << "\n\n"
      << usage;
  return kExitUsage;
}

}  // namespace

int RunJobsCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
  if (args.empty()) return UsageError("", "missing command", kJobsUsage, err);
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    out << kJobsUsage;
    return kExitOk;
  }
  const std::vector<Subcommand> subcommands = Subcommands();
  auto sub = std::find_if(subcommands.begin(), subcommands.end(),
                          [&](const auto& s) { return s.name == args[0]; });
  if (sub == subcommands.end()) {
    return UsageError("", absl::StrCat("unknown command \"", args[0], "\""),
                      kJobsUsage, err);
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (WantsHelp(rest)) {
    out << sub->usage;
    return kExitOk;
  }
  RepeatedSlurmFlags slurm_flags;
  if (sub->name == "submit") slurm_flags = TakeRepeatedSlurmFlags(rest);
  std::set<std::string> value_flags = sub->value_flags;
  value_flags.insert(client::ConnectionFlags().begin(),
                     client::ConnectionFlags().end());
  auto parsed = ParseArgs(rest, value_flags, sub->bool_flags);
  if (!parsed.ok()) {
    return UsageError(sub->name, std::string(parsed.status().message()),
                      sub->usage, err);
  }
  const size_t want = sub->takes_job ? 1 : 0;
  if (parsed->positional.size() != want) {
    return UsageError(
        sub->name,
        want == 1 ? absl::StrCat("expected one JOB, got ",
                                 parsed->positional.size(), " arguments")
                  : absl::StrCat("takes no arguments, got \"",
                                 parsed->positional[0], "\""),
        sub->usage, err);
  }
  if (!parsed->after_dashes.empty() && sub->name != "submit") {
    return UsageError(sub->name, "takes no arguments after --", sub->usage,
                      err);
  }
  jobs::Invocation invocation;
  invocation.args = *std::move(parsed);
  invocation.slurm_flags = std::move(slurm_flags);
  if (auto format = invocation.args.Get("format")) {
    // Only `describe` prints a whole job, which is what Vertex shapes.
    auto parsed_format = ParseOutputFormat(*format, sub->name == "describe");
    if (!parsed_format.ok()) return FailStatus(parsed_format.status(), err);
    invocation.format = *parsed_format;
  }
  if (invocation.args.Has("reconnect-seconds")) {
    auto window = ReconnectWindow(invocation.args);
    if (!window.ok()) return FailStatus(window.status(), err);
    invocation.reconnect_window = *window;
  }
  // Only `describe` takes --db: it reads the file, not a server.
  if (invocation.args.Has("db")) {
    if (invocation.args.Has("server")) {
      return UsageError(sub->name, "give --db FILE or --server ADDR, not both",
                        sub->usage, err);
    }
    return sub->run(invocation, out, err);
  }
  auto server = client::Connect(DefaultEnv(), invocation.args, ProcessEnv());
  if (!server.ok()) return FailStatus(server.status(), err);
  invocation.server = *std::move(server);
  invocation.stub = v1::JobService::NewStub(invocation.server.channel);
  return sub->run(invocation, out, err);
}

}  // namespace hptune::cli
