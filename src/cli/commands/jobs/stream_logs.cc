#include <cstdint>

#include "src/cli/commands/jobs/logs.h"
#include "src/cli/commands/jobs/subcommand.h"

namespace hptune::cli::jobs {
namespace {

constexpr char kStreamLogsUsage[] =
    "usage: hptune jobs stream-logs JOB [--trial N] [--replica NAME] "
    "[--follow] [flags]\n"
    "\n"
    "Prints what the trainer wrote (stdout and stderr). Without --trial,\n"
    "every trial's log in turn, each after a \"==> trial N REPLICA <==\"\n"
    "line.\n"
    "\n"
    "  --trial N                 only trial N (1, 2, ...)\n"
    "  --replica NAME            master-0 (default), chief-0, worker-N,\n"
    "                            ps-N or evaluator-N\n"
    "  --follow                  keep printing new output until the trial\n"
    "                            (without --trial: the job) has ended\n"
    "  --reconnect-seconds N     when the server goes away (a restart), try\n"
    "                            to reach it again for up to N seconds and\n"
    "                            go on where the log was (default 300; 0:\n"
    "                            fail at once)\n";
constexpr char kStreamLogsExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs stream-logs mnist_1 --trial 3 --replica worker-0 "
    "--follow\n";

int RunStreamLogs(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  const std::string replica = c.args.Get("replica").value_or("master-0");
  const bool follow = c.args.Has("follow");
  client::Reconnector reconnector(c.server, c.reconnect_window, err,
                                  "the logs of job " + job_id);
  if (c.args.Has("trial")) {
    auto trial = IntegerFlag<int64_t>(c.args, "trial", 1);
    if (!trial.ok()) return FailStatus(trial.status(), err);
    int64_t offset = 0;
    grpc::Status status = client::CallWithReconnects(reconnector, [&] {
      return StreamLog(c, job_id, *trial, replica, follow, offset, reconnector,
                       out);
    });
    return status.ok() ? kExitOk : c.server.Fail(status, err);
  }
  v1::Job::State final_state = v1::Job::STATE_UNSPECIFIED;
  grpc::Status status =
      StreamJobLogs(c, job_id, replica, follow, reconnector, out, final_state);
  return status.ok() ? kExitOk : c.server.Fail(status, err);
}

}  // namespace

Subcommand StreamLogsCommand() {
  return {"stream-logs",
          Usage(kStreamLogsUsage, kStreamLogsExample),
          {"trial", "replica", "reconnect-seconds"},
          {"follow"},
          true,
          RunStreamLogs};
}

}  // namespace hptune::cli::jobs
