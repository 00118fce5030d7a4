#include "src/cli/commands/jobs/subcommand.h"

#include "absl/strings/str_cat.h"
#include "src/cli/client/job_watch.h"
#include "src/cli/client/rpc_errors.h"

namespace hptune::cli::jobs {

std::string Usage(const char* head, const char* example,
                  const char* more_flags) {
  return absl::StrCat(head, more_flags[0] ? "\n" : "", more_flags, "\n",
                      client::kConnectionHelp, example);
}

int FinalStateExitCode(v1::Job::State state) {
  return state == v1::Job::SUCCEEDED ? kExitOk : kExitFailure;
}

int FailStatus(const absl::Status& status, std::ostream& err) {
  err << "hptune: " << status.message() << "\n";
  return client::ExitCodeForStatus(status);
}

grpc::Status GetJob(const Invocation& c, const std::string& job_id,
                    bool omit_trials, v1::Job& job) {
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  request.set_omit_trials(omit_trials);
  return c.stub->GetJob(c.server.Context().get(), request, &job);
}

grpc::Status Watch(const Invocation& c, const std::string& job_id,
                   const std::function<void(const v1::JobEvent&)>& on_event,
                   std::ostream& notices, v1::Job::State& final_state) {
  return client::FollowJob({.server = c.server,
                            .stub = *c.stub,
                            .job_id = job_id,
                            .reconnect_window = c.reconnect_window,
                            .on_event = on_event,
                            .notices = notices},
                           final_state);
}

}  // namespace hptune::cli::jobs
