#include "src/cli/client/job_watch.h"

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "src/cli/client/rpc_errors.h"

namespace hptune::cli::client {
namespace {

constexpr auto kFirstRetryDelay = std::chrono::milliseconds(250);
constexpr auto kLongestRetryDelay = std::chrono::seconds(5);

// What a lost connection or a server going away looks like to a stream.
bool WatchWasLost(const grpc::Status& status) {
  return status.ok() || status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::CANCELLED;
}

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
  using Clock = std::chrono::steady_clock;
  v1::WatchJobRequest request;
  request.set_job_id(watch.job_id);
  Reporter reporter(watch.on_event);
  bool watched = false;  // A stream has answered at least once.
  bool lost = false;     // Since lost_since, no stream has answered.
  Clock::time_point lost_since;
  std::chrono::milliseconds delay = kFirstRetryDelay;
  for (;;) {
    auto context = watch.server.Context(/*streaming=*/true);
    auto reader = watch.stub.WatchJob(context.get(), request);
    v1::JobEvent event;
    while (reader->Read(&event)) {
      if (lost) {
        v1::GetJobRequest get;
        get.set_job_id(watch.job_id);
        v1::Job job;
        grpc::Status status =
            watch.stub.GetJob(watch.server.Context().get(), get, &job);
        if (!status.ok()) {
          if (!WatchWasLost(status)) return status;
          context->TryCancel();  // Gone again: retry as before.
          break;
        }
        watch.notices << "hptune: reconnected to "
                      << watch.server.options.address << "; watching job "
                      << watch.job_id << " again\n";
        lost = false;
        delay = kFirstRetryDelay;
        reporter.CatchUp(job);
      }
      watched = true;
      reporter.Report(event);
    }
    grpc::Status status = reader->Finish();
    final_state = reporter.job_state();
    if (status.ok() && IsTerminal(final_state)) return status;
    const std::string why =
        status.ok() ? "the server ended the watch before the job ended"
                    : absl::StrCat(StatusCodeName(status.error_code()), ": ",
                                   status.error_message());
    if (!watched || !WatchWasLost(status) ||
        watch.reconnect_window.count() == 0) {
      if (!status.ok()) return status;
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          absl::StrCat("the server ended the watch of job ",
                                       watch.job_id, " before the job ended"));
    }
    const Clock::time_point now = Clock::now();
    if (!lost) {
      lost = true;
      lost_since = now;
      watch.notices << "hptune: lost the watch of job " << watch.job_id
                    << " at " << watch.server.options.address << " (" << why
                    << "); reconnecting for up to "
                    << watch.reconnect_window.count() << " s\n";
    } else if (now - lost_since >= watch.reconnect_window) {
      return grpc::Status(
          grpc::StatusCode::UNAVAILABLE,
          absl::StrCat("lost the watch of job ", watch.job_id, " at ",
                       watch.server.options.address,
                       " and no server answered within ",
                       watch.reconnect_window.count(),
                       " s (--reconnect-seconds); last error: ", why));
    }
    std::this_thread::sleep_for(delay);
    delay = std::min<std::chrono::milliseconds>(2 * delay, kLongestRetryDelay);
  }
}

}  // namespace hptune::cli::client
