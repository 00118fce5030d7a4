#include "src/cli/commands/jobs/subcommand.h"

namespace hptune::cli::jobs {
namespace {

constexpr char kDeleteUsage[] =
    "usage: hptune jobs delete JOB [flags]\n"
    "\n"
    "Deletes a job that has ended, with its study: its trials, measurements\n"
    "and notes (the trainers' logs stay on the server, under its state\n"
    "directory's runs/.deleted/). Asks nothing. A job that has not ended is\n"
    "refused, naming its state: cancel it first.\n";
constexpr char kDeleteExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs cancel mnist_1 --wait && hptune jobs delete mnist_1\n";

int RunDelete(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  v1::DeleteJobRequest request;
  request.set_job_id(job_id);
  google::protobuf::Empty reply;
  grpc::Status status =
      c.stub->DeleteJob(c.server.Context().get(), request, &reply);
  if (!status.ok()) return c.server.Fail(status, err);
  out << "job " << job_id << " deleted\n";
  return kExitOk;
}

}  // namespace

Subcommand DeleteCommand() {
  return {"delete", Usage(kDeleteUsage, kDeleteExample), {}, {}, true,
          RunDelete};
}

}  // namespace hptune::cli::jobs
