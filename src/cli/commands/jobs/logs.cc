#include "src/cli/commands/jobs/logs.h"

#include <chrono>

#include "src/cli/client/job_watch.h"

namespace hptune::cli::jobs {
namespace {

// How often a follower asks again for a trial that has no log yet.
constexpr auto kLogPollInterval = std::chrono::milliseconds(300);

bool IsEnded(const v1::HyperparameterOutput& trial) {
  return client::IsTerminal(trial.state());
}

}  // namespace

grpc::Status StreamLog(const Invocation& c, const std::string& job_id,
                       int64_t trial, const std::string& replica, bool follow,
                       int64_t& offset, client::Reconnector& reconnector,
                       std::ostream& out) {
  v1::GetTrialLogsRequest request;
  request.set_job_id(job_id);
  request.set_trial_id(trial);
  request.set_replica(replica);
  request.set_offset(offset);
  request.set_follow(follow);
  auto context = c.server.Context(/*streaming=*/follow);
  auto reader = c.stub->StreamTrialLogs(context.get(), request);
  v1::LogChunk chunk;
  while (reader->Read(&chunk)) {
    reconnector.Answered();
    out << chunk.data();
    out.flush();
    offset = chunk.next_offset();
  }
  return reader->Finish();
}

grpc::Status StreamJobLogs(const Invocation& c, const std::string& job_id,
                           const std::string& replica, bool follow,
                           client::Reconnector& reconnector, std::ostream& out,
                           v1::Job::State& final_state) {
  auto get_job = [&](v1::Job& job) {
    return client::CallWithReconnects(
        reconnector, [&] { return GetJob(c, job_id, false, job); });
  };
  for (int64_t n = 1;; ++n) {
    v1::Job job;
    // Wait for trial n to appear, or for the job to end without it.
    for (;;) {
      if (grpc::Status s = get_job(job); !s.ok()) return s;
      final_state = job.state();
      if (job.training_output().trials_size() >= n) break;
      if (!follow || client::IsTerminal(job.state())) return grpc::Status::OK;
      c.server.options.env->SleepFor(kLogPollInterval);
    }
    out << (n > 1 ? "\n" : "") << "==> trial " << n << " " << replica
        << " <==\n";
    int64_t offset = 0;
    for (;;) {
      bool ended = IsEnded(job.training_output().trials(n - 1));
      grpc::Status s = client::CallWithReconnects(reconnector, [&] {
        return StreamLog(c, job_id, n, replica, follow && !ended, offset,
                         reconnector, out);
      });
      if (s.ok()) break;
      if (s.error_code() != grpc::StatusCode::NOT_FOUND) return s;
      // No log yet (the trial is queued), or none at all (it never ran).
      if (!follow || ended) {
        out << "(no log: " << s.error_message() << ")\n";
        break;
      }
      c.server.options.env->SleepFor(kLogPollInterval);
      if (grpc::Status g = get_job(job); !g.ok()) return g;
      final_state = job.state();
    }
  }
}

}  // namespace hptune::cli::jobs
