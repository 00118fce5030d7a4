#include "src/cli/commands/jobs/subcommand.h"

namespace hptune::cli::jobs {
namespace {

constexpr char kCancelUsage[] =
    "usage: hptune jobs cancel JOB [--wait] [flags]\n"
    "\n"
    "Cancels a queued or running job: its running trials are stopped and it\n"
    "ends CANCELLED.\n"
    "\n"
    "  --wait                    wait until the job has ended\n"
    "  --reconnect-seconds N     with --wait: how long to try to reach a\n"
    "                            server that went away (default 300)\n";
constexpr char kCancelExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs cancel mnist_1 --wait\n";

int RunCancel(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  v1::CancelJobRequest request;
  request.set_job_id(job_id);
  v1::Job job;
  grpc::Status status =
      c.stub->CancelJob(c.server.Context().get(), request, &job);
  if (!status.ok()) return c.server.Fail(status, err);
  if (!c.args.Has("wait")) {
    out << "job " << job_id << " " << v1::Job::State_Name(job.state()) << "\n";
    return kExitOk;
  }
  v1::Job::State final_state = job.state();
  status = Watch(
      c, job_id, [](const v1::JobEvent&) {}, err, final_state);
  if (!status.ok()) return c.server.Fail(status, err);
  out << "job " << job_id << " " << v1::Job::State_Name(final_state) << "\n";
  return final_state == v1::Job::CANCELLED ? kExitOk : kExitFailure;
}

}  // namespace

Subcommand CancelCommand() {
  return {"cancel",
          Usage(kCancelUsage, kCancelExample),
          {"reconnect-seconds"},
          {"wait"},
          true,
          RunCancel};
}

}  // namespace hptune::cli::jobs
