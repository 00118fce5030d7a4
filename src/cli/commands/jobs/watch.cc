#include "hptune/core/time.h"
#include "src/api/conversion.h"
#include "src/cli/client/job_format.h"
#include "src/cli/client/proto_convert.h"
#include "src/cli/commands/jobs/subcommand.h"

namespace hptune::cli::jobs {
namespace {

constexpr char kWatchUsage[] =
    "usage: hptune jobs watch JOB [flags]\n"
    "\n"
    "Prints the job's trials so far, then its state changes and each\n"
    "trial's start and result as they happen, until the job ends. Exit code\n"
    "0 when it succeeded, 1 when it failed or was cancelled. When the server\n"
    "goes away (a restart), the watch waits for it and goes on where it\n"
    "was: each trial's result is printed once, none is missed.\n"
    "\n"
    "  --reconnect-seconds N     how long to try to reach a server that went\n"
    "                            away (default 300; 0: fail at once)\n";
constexpr char kWatchExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs watch mnist_1\n";

int RunWatch(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  std::string metric = "objective";
  v1::Job::State final_state = v1::Job::STATE_UNSPECIFIED;
  grpc::Status status = Watch(
      c, job_id,
      [&](const v1::JobEvent& event) {
        if (event.has_job() && event.job().has_training_input()) {
          metric = client::MetricTag(event.job());
        }
        auto time = api::OptionalTimestampFromProto(event.time());
        out << (time ? FormatRfc3339(*time) + "  " : "")
            << client::DescribeJobEvent(event, metric) << "\n";
        out.flush();
      },
      err, final_state);
  if (!status.ok()) return c.server.Fail(status, err);
  return FinalStateExitCode(final_state);
}

}  // namespace

Subcommand WatchCommand() {
  return {"watch",
          Usage(kWatchUsage, kWatchExample),
          {"reconnect-seconds"},
          {},
          true,
          RunWatch};
}

}  // namespace hptune::cli::jobs
