// TrialExecution: one running trial of a job, from its first replica start to
// its end; the JobRunner keeps one per running trial.
//
// It starts the replicas, restarts a replica that exits non-zero (up to
// max_replica_restarts), re-runs the whole attempt when a replica runs out of
// restarts (up to max_trial_retries), reads the master's metrics, and records
// each replica transition as a store event. Attempts are numbered across
// runners (Trial::attempt, stored before an attempt starts); each report is
// tagged with its attempt. An attempt that an earlier runner lost by dying
// counts as a failed one; one a server's drain ended does not. Deciding what a
// finished trial means for the study (complete, fail, stop early) is the
// JobRunner's. Not thread-safe: used by the runner's thread only.
#ifndef HPTUNE_SRC_RUNNER_TRIAL_EXECUTION_H_
#define HPTUNE_SRC_RUNNER_TRIAL_EXECUTION_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/measurement.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"
#include "hptune/launch/metrics.h"
#include "hptune/store/store.h"

namespace hptune::runner::internal {

struct TrialExecutionLimits {
  int max_replica_restarts = 5;
  int max_trial_retries = 3;
  std::chrono::milliseconds termination_grace{5000};
  int64_t max_log_bytes = 0;  // JobRunnerOptions::max_log_bytes.
};

// What one Poll() saw.
struct TrialPoll {
  enum class Outcome {
    kRunning,
    kSucceeded,  // The master exited 0; every replica is stopped.
    kFailed,     // Out of restarts and re-runs; every replica is stopped.
    // The master reported a NaN or infinite objective; every replica is
    // stopped.
    kInfeasible,
  };
  Outcome outcome = Outcome::kRunning;
  std::string reason;  // Why it failed or is infeasible.
  // kFailed by an error no retry cures (failure_cause.h): not restarted nor
  // re-run; `log_tail` holds the last lines of the replica's log.
  bool permanent = false;
  std::vector<std::string> log_tail;
  // Something the user should see at once (a report without the objective).
  std::string warning;
  std::vector<Measurement> measurements;  // New reports of the master.
  bool changed = false;  // Anything happened (an exit, a report).
  int restarts = 0;      // Replicas restarted and attempts re-run.
};

class TrialExecution {
 public:
  // `launch` is what every attempt starts; `placement` is held until the
  // execution is destroyed. The master's metrics are read from its hypertune
  // file and, for programs that write none, its stdout lines of `metric`.
  // `metric_field` is the config field that names it, as the job was
  // written ("hyperparameterMetricTag", "studySpec.metrics[0].metricId"),
  // for the messages that say it was not reported. An empty `metric` (a
  // job's one run) asks for none: the trial succeeds on the master's exit 0.
  TrialExecution(store::Store& store, std::string study,
                 launch::Launcher& launcher, launch::TrialLaunch launch,
                 std::unique_ptr<launch::Placement> placement,
                 const std::string& metric, std::string metric_field,
                 TrialExecutionLimits limits, Env& env);
  ~TrialExecution();

  int64_t trial() const { return launch_.trial; }

  // Starts the next attempt of `stored` (the trial as stored). A failure to
  // start counts as a failed attempt and is retried by Poll(); an error is a
  // store failure. With `reattach` (the trial was running when an earlier
  // runner of the job died), first asks the launcher for what is left of it
  // (Launcher::Reattach) and goes on with those replicas, in the same
  // attempt, instead of starting them twice; when nothing is left, the lost
  // attempt counts as failed unless a drain ended it.
  [[nodiscard]] absl::Status Start(const Trial& stored, bool reattach = false);
  // True when Start went on with replicas an earlier runner left running.
  bool reattached() const { return reattached_; }
  // Whether the backend holds the current attempt in its queue, no replica
  // started yet (launch::TrialRun::Queued).
  bool queued() const { return run_ != nullptr && run_->Queued(); }
  absl::StatusOr<TrialPoll> Poll();
  // Readable when a replica of the current attempt exits (TrialRun::ExitFds).
  std::vector<int> ExitFds() const {
    return run_ ? run_->ExitFds() : std::vector<int>{};
  }
  // Stops every replica (SIGTERM, grace, SIGKILL) and reads the metrics the
  // master reported before it stopped.
  absl::StatusOr<std::vector<Measurement>> Stop();

 private:
  // Starts attempt attempt_ + 1; false (with reason_) when it cannot start.
  absl::StatusOr<bool> StartAttempt();
  // The master's new reports; unreadable lines are recorded as an event.
  absl::StatusOr<launch::MetricReads> ReadMetrics();
  // Adds `reads` to `poll`; a non-finite objective stops every replica and
  // makes the outcome kInfeasible.
  [[nodiscard]] absl::Status TakeReads(launch::MetricReads reads,
                                       TrialPoll& poll);
  [[nodiscard]] absl::Status Record(const std::string& detail);
  // At most once a second (`now`: at once, when the replicas have
  // stopped): cuts each replica's log past max_log_bytes (Env::CapLog), so
  // a trainer passes the cap by about a second of its output at most. The
  // first cut of each log, or why it cannot be cut, is an event.
  [[nodiscard]] absl::Status CapLogs(bool now = false);
  // Stores attempt_ and drained_ with the trial.
  [[nodiscard]] absl::Status SaveAttempts();
  // 1 + max_trial_retries, and one more for each drained attempt.
  int Attempts() const { return 1 + limits_.max_trial_retries + drained_; }
  // After a replica ran out of restarts or the attempt could not start:
  // re-runs the trial if retries are left, else ends the execution failed.
  [[nodiscard]] absl::Status FailAttempt(const std::string& reason,
                                         TrialPoll& poll,
                                         const std::string& log_note = "");
  // Ends the execution failed with an error no restart or re-run cures.
  [[nodiscard]] absl::Status FailPermanently(const std::string& reason,
                                             std::vector<std::string> tail,
                                             TrialPoll& poll);
  // Notes which metrics the master reported; warns (once) when a report
  // lacks the objective.
  [[nodiscard]] absl::Status NoteMetricNames(
      const std::vector<Measurement>& measurements, TrialPoll& poll);
  // "reported acc, loss; expected accuracy (hyperparameterMetricTag)", or
  // why nothing was reported.
  std::string MissingObjective() const;
  // Ends a trial whose master exited 0 without a value of the objective
  // FAILED, warning with the reason the first time.
  [[nodiscard]] absl::Status FailForNoObjective(TrialPoll& poll);

  store::Store& store_;
  const std::string study_;
  launch::Launcher& launcher_;
  Env& env_;
  const launch::TrialLaunch launch_;
  std::unique_ptr<launch::Placement> placement_;
  const TrialExecutionLimits limits_;
  const std::string metric_;
  const std::string metric_field_;
  launch::HypertuneFileReader hypertune_;
  launch::StdoutMetricReader stdout_;
  // Which source the program reports through, once it has reported.
  enum class Source {
    kUnknown,
    kHypertune,
    kStdout
  } source_ = Source::kUnknown;

  std::unique_ptr<launch::TrialRun> run_;
  int attempt_ = 0;  // 1-based number of the current attempt, across runners.
  int drained_ = 0;  // Attempts a server's drain ended.
  std::vector<int> restarts_;  // Per replica, in the current attempt.
  // When CapLogs looks next; the replicas whose log has an event of it.
  Timestamp next_log_check_;
  std::vector<bool> log_noted_;
  int64_t unreadable_lines_ = 0;  // In the master's metric file, all told.
  std::string last_unreadable_line_;
  bool noted_untimed_ = false;  // Reports without a timestamp were recorded.
  // Metric names the master reported in this attempt (at most 20), and
  // whether the objective was one of them.
  std::set<std::string> reported_names_;
  bool objective_reported_ = false;
  bool warned_missing_objective_ = false;
  bool start_failed_ = false;
  bool start_permanent_ = false;  // The start failed for good.
  bool reattached_ = false;
  std::string start_error_;
};

}  // namespace hptune::runner::internal

#endif  // HPTUNE_SRC_RUNNER_TRIAL_EXECUTION_H_
