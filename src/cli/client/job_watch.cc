#include "src/cli/client/job_watch.h"

#include <map>
#include <optional>

#include "absl/strings/str_cat.h"

namespace hptune::cli::client {
namespace {

// Reports each job state and each (trial, state) once.
class Reporter {
 public:
  explicit Reporter(const std::function<void(const v1::JobEvent&)>& on_event)
      : on_event_(on_event) {}

  void Report(const v1::JobEvent& event) {
    if (event.has_job()) {
      const v1::Job::State state = event.job().state();
      if (job_state_ == state) return;
      job_state_ = state;
    } else {
      auto [it, added] =
          trials_.try_emplace(event.trial().trial_id(), event.trial().state());
      if (!added && it->second == event.trial().state()) return;
      it->second = event.trial().state();
    }
    on_event_(event);
  }

  // The trials of a full GetJob as trial events, timed by their last change.
  void CatchUp(const v1::Job& job) {
    for (const v1::HyperparameterOutput& trial :
         job.training_output().trials()) {
      v1::JobEvent event;
      if (trial.has_end_time()) {
        *event.mutable_time() = trial.end_time();
      } else if (trial.has_start_time()) {
        *event.mutable_time() = trial.start_time();
      }
      *event.mutable_trial() = trial;
      Report(event);
    }
  }

  v1::Job::State job_state() const {
    return job_state_.value_or(v1::Job::STATE_UNSPECIFIED);
  }

 private:
  const std::function<void(const v1::JobEvent&)>& on_event_;
  std::optional<v1::Job::State> job_state_;
  std::map<std::string, v1::Job::State> trials_;
};

}  // namespace

bool IsTerminal(v1::Job::State state) {
  return state == v1::Job::SUCCEEDED || state == v1::Job::FAILED ||
         state == v1::Job::CANCELLED;
}

grpc::Status FollowJob(const JobWatch& watch, v1::Job::State& final_state) {
  v1::WatchJobRequest request;
  request.set_job_id(watch.job_id);
  Reporter reporter(watch.on_event);
  Reconnector reconnector(watch.server, watch.reconnect_window, watch.notices,
                          "job " + watch.job_id);
  bool first_watch = true;
  for (;;) {
    auto context = watch.server.Context(/*streaming=*/true);
    auto reader = watch.stub.WatchJob(context.get(), request);
    v1::JobEvent event;
    grpc::Status catch_up;
    while (reader->Read(&event)) {
      // A watch starts from the job as it is (its first event): the trials
      // so far come from GetJob, on the first watch after the job's state
      // (a heading), after a loss before it (the job may have ended since).
      const bool first = first_watch;
      if (first || reconnector.lost()) {
        first_watch = false;
        v1::GetJobRequest get;
        get.set_job_id(watch.job_id);
        v1::Job job;
        catch_up = watch.stub.GetJob(watch.server.Context().get(), get, &job);
        if (!catch_up.ok()) {
          context->TryCancel();
          break;
        }
        reconnector.Answered();  // "reconnected" before what was missed.
        if (first) reporter.Report(event);
        reporter.CatchUp(job);
      } else {
        reconnector.Answered();
      }
      reporter.Report(event);
    }
    grpc::Status status = reader->Finish();
    if (!catch_up.ok()) status = catch_up;
    final_state = reporter.job_state();
    if (status.ok() && IsTerminal(final_state)) return status;
    if (status.ok()) {
      status =
          grpc::Status(grpc::StatusCode::UNAVAILABLE,
                       absl::StrCat("the server ended the watch of job ",
                                    watch.job_id, " before the job ended"));
    }
    if (!reconnector.Retry(status)) return status;
  }
}

}  // namespace hptune::cli::client
