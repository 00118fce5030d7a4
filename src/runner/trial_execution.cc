#include "src/runner/trial_execution.h"

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/launch/replica_env.h"
#include "src/runner/failure_cause.h"

namespace hptune::runner::internal {
namespace {

std::string Describe(const launch::ReplicaExit& exit) {
  if (exit.signal != 0) return absl::StrCat("killed by signal ", exit.signal);
  return absl::StrCat("exited with code ", exit.exit_code);
}

// "worker-1", "chief-0": the name its log and metric files have.
std::string ReplicaLabel(const launch::ReplicaLaunch& replica) {
  return replica.log_path.stem().string();
}

// What a failure reason adds so that its cause is one look away: "; last
// log line: X; log: PATH".
std::string LogNote(const std::filesystem::path& log,
                    const std::vector<std::string>& tail) {
  const std::string last = LastLogLine(tail);
  return absl::StrCat(last.empty() ? "" : "; last log line: ", last,
                      "; log: ", log.string());
}

constexpr size_t kMaxNamesShown = 20;

}  // namespace

TrialExecution::TrialExecution(store::Store& store, std::string study,
                               launch::Launcher& launcher,
                               launch::TrialLaunch launch,
                               std::unique_ptr<launch::Placement> placement,
                               const std::string& metric,
                               std::string metric_field,
                               TrialExecutionLimits limits, Env& env)
    : store_(store),
      study_(std::move(study)),
      launcher_(launcher),
      env_(env),
      launch_(std::move(launch)),
      placement_(std::move(placement)),
      limits_(limits),
      metric_(metric),
      metric_field_(std::move(metric_field)),
      hypertune_(launch_.replicas.front().metrics_path, metric, env),
      stdout_(launch_.replicas.front().log_path, metric, env),
      restarts_(launch_.replicas.size(), 0),
      log_noted_(launch_.replicas.size(), false) {}

TrialExecution::~TrialExecution() {
  if (run_) run_->Terminate(limits_.termination_grace);
}

absl::Status TrialExecution::Record(const std::string& detail) {
  return store_.RecordReplicaEvent(launch_.job_id, launch_.trial, detail);
}

absl::Status TrialExecution::CapLogs(bool now) {
  const int64_t cap = limits_.max_log_bytes;
  if (cap <= 0 || (!now && env_.Now() < next_log_check_)) {
    return absl::OkStatus();
  }
  next_log_check_ = env_.Now() + std::chrono::seconds(1);
  for (size_t i = 0; i < launch_.replicas.size(); ++i) {
    const std::filesystem::path& log = launch_.replicas[i].log_path;
    absl::StatusOr<LogCut> cut = env_.CapLog(log, cap);
    if (absl::IsNotFound(cut.status())) continue;  // Nothing written yet.
    if (cut.ok() && cut->length == 0) continue;
    // The master's stdout lines are read by offset.
    if (cut.ok() && i == 0) stdout_.SkipCut(*cut);
    if (log_noted_[i]) continue;
    log_noted_[i] = true;
    const std::string name = ReplicaLabel(launch_.replicas[i]);
    HPTUNE_RETURN_IF_ERROR(Record(
        !cut.ok()
            ? absl::StrCat(name, "'s log cannot be capped at --max-log-bytes ",
                           cap, ": ", cut.status().message())
            : absl::StrCat(name, "'s log passed --max-log-bytes ", cap, ": ",
                           cut->removed_in_all,
                           " bytes removed after its first ", cut->head,
                           cut->collapsed
                               ? ""
                               : " (a hole: its file system cannot "
                                 "collapse a range, so its size stays)")));
  }
  return absl::OkStatus();
}

absl::Status TrialExecution::SaveAttempts() {
  return store_
      .UpdateTrial(study_, launch_.trial,
                   [&](Trial& trial) {
                     trial.attempt = attempt_;
                     trial.drained_attempts = drained_;
                     return absl::OkStatus();
                   })
      .status();
}

absl::Status TrialExecution::Start(const Trial& stored, bool reattach) {
  attempt_ = stored.attempt;
  drained_ = stored.drained_attempts;
  // A drained attempt (its marker is the draining server's) is given back.
  const std::filesystem::path drained_marker =
      DrainedAttemptIn(launch_.replicas.front().log_path.parent_path());
  const absl::StatusOr<bool> drained = env_.Remove(drained_marker);
  if (drained.ok() && *drained && reattach && attempt_ > 0) {
    ++drained_;
    HPTUNE_RETURN_IF_ERROR(SaveAttempts());
    HPTUNE_RETURN_IF_ERROR(
        Record(absl::StrCat("attempt ", attempt_,
                            " ended with a server's drain; it does not count "
                            "against the trial's retries")));
    reattach = false;  // A drain leaves nothing running.
  }
  if (reattach) {
    auto found = launcher_.Reattach(launch_);
    if (!found.ok()) {
      // Could not look; a fresh start is what the runner did before
      // Reattach existed.
      HPTUNE_RETURN_IF_ERROR(Record(absl::StrCat(
          "cannot reattach: ", found.status().message(), "; starting afresh")));
    } else if (*found != nullptr) {
      if (attempt_ == 0) {  // Stored before attempts were.
        attempt_ = 1;
        HPTUNE_RETURN_IF_ERROR(SaveAttempts());
      }
      run_ = *std::move(found);
      start_failed_ = false;
      reattached_ = true;
      // What it reported before is stored, not seen here: no tag check.
      objective_reported_ = true;
      return Record(absl::StrCat("attempt ", attempt_, " reattached to ",
                                 launch_.replicas.size(),
                                 " replicas left running"));
    }
    if (attempt_ > 0) {
      // Its runner died with it: a failed attempt, re-run by Poll() if
      // retries are left, so crashes cannot re-run a trial without end.
      start_failed_ = true;
      start_error_ =
          "its runner died mid-attempt: killed, out of memory or a reboot";
      return absl::OkStatus();
    }
  }
  HPTUNE_ASSIGN_OR_RETURN(bool started, StartAttempt());
  start_failed_ = !started;
  return absl::OkStatus();
}

absl::StatusOr<bool> TrialExecution::StartAttempt() {
  ++attempt_;
  std::fill(restarts_.begin(), restarts_.end(), 0);
  reported_names_.clear();
  objective_reported_ = false;
  // Stored first: whatever this attempt reports, even after this runner
  // dies, is tagged with a number the trial knows.
  HPTUNE_RETURN_IF_ERROR(SaveAttempts());
  auto run = launcher_.Start(launch_);
  if (!run.ok()) {
    start_permanent_ = absl::IsNotFound(run.status()) ||
                       absl::IsPermissionDenied(run.status());
    start_error_ = absl::StrCat("attempt ", attempt_,
                                " could not start: ", run.status().message());
    HPTUNE_RETURN_IF_ERROR(Record(start_error_));
    return false;
  }
  run_ = *std::move(run);
  HPTUNE_RETURN_IF_ERROR(
      Record(absl::StrCat("attempt ", attempt_, " started ",
                          launch_.replicas.size(), " replicas")));
  return true;
}

absl::StatusOr<launch::MetricReads> TrialExecution::ReadMetrics() {
  // A program reports through one channel; reading both would count each
  // report twice when it also prints what it writes to the hypertune file.
  launch::MetricReads found;
  if (source_ != Source::kStdout) {
    HPTUNE_ASSIGN_OR_RETURN(found, hypertune_.ReadNew());
    if (!found.measurements.empty() || found.non_finite_objective) {
      source_ = Source::kHypertune;
    }
  }
  if (source_ != Source::kHypertune) {
    HPTUNE_ASSIGN_OR_RETURN(launch::MetricReads lines, stdout_.ReadNew());
    if (!lines.measurements.empty() || lines.non_finite_objective) {
      source_ = Source::kStdout;
    }
    for (auto& m : lines.measurements)
      found.measurements.push_back(std::move(m));
    if (!found.non_finite_objective) {
      found.non_finite_objective = std::move(lines.non_finite_objective);
    }
  }
  // Lines that are no report are the trainer's bug to see, not to lose.
  if (!found.first_untimed_report.empty() && !noted_untimed_) {
    noted_untimed_ = true;
    HPTUNE_RETURN_IF_ERROR(Record(absl::StrCat(
        "master-0's metric file: reports without a timestamp, each taking ",
        "the time it was read; the first: ", found.first_untimed_report)));
  }
  if (found.unreadable_lines > 0) {
    unreadable_lines_ += found.unreadable_lines;
    last_unreadable_line_ = found.last_unreadable_line;
    HPTUNE_RETURN_IF_ERROR(Record(
        absl::StrCat("master-0's metric file: ", found.unreadable_lines,
                     " line(s) that are no report (", unreadable_lines_,
                     " in all); the last: ", found.last_unreadable_line)));
  }
  return found;
}

absl::Status TrialExecution::NoteMetricNames(
    const std::vector<Measurement>& measurements, TrialPoll& poll) {
  bool lacks_objective = false;
  for (const Measurement& m : measurements) {
    if (m.metrics.contains(metric_)) {
      objective_reported_ = true;
    } else {
      lacks_objective = true;
    }
    for (const auto& [name, value] : m.metrics) {
      if (reported_names_.size() < kMaxNamesShown) reported_names_.insert(name);
    }
  }
  // No objective (a job's one run): no report lacks it.
  if (metric_.empty() || !lacks_objective || objective_reported_ ||
      warned_missing_objective_) {
    return absl::OkStatus();
  }
  warned_missing_objective_ = true;
  poll.warning = absl::StrCat("trial ", launch_.trial, " ", MissingObjective(),
                              "; it will fail unless it reports \"", metric_,
                              "\" before it ends");
  return Record(poll.warning);
}

std::string TrialExecution::MissingObjective() const {
  if (reported_names_.empty() && unreadable_lines_ > 0) {
    return absl::StrCat("reported no value of ", metric_, " (", metric_field_,
                        "): its metric file had ", unreadable_lines_,
                        " line(s) that are no report; ",
                        "the last: ", last_unreadable_line_);
  }
  if (reported_names_.empty()) {
    return absl::StrCat("reported no value of ", metric_, " (", metric_field_,
                        "), neither to its metric file nor on stdout");
  }
  return absl::StrCat("reported ", absl::StrJoin(reported_names_, ", "),
                      "; expected ", metric_, " (", metric_field_, ")");
}

absl::Status TrialExecution::FailForNoObjective(TrialPoll& poll) {
  poll.outcome = TrialPoll::Outcome::kFailed;
  poll.reason = MissingObjective();
  if (!warned_missing_objective_) {
    warned_missing_objective_ = true;
    poll.warning = absl::StrCat("trial ", launch_.trial, " ", poll.reason);
  }
  return Record(absl::StrCat("the trial fails: ", poll.reason));
}

absl::Status TrialExecution::TakeReads(launch::MetricReads reads,
                                       TrialPoll& poll) {
  HPTUNE_RETURN_IF_ERROR(NoteMetricNames(reads.measurements, poll));
  for (auto& m : reads.measurements) {
    m.attempt = attempt_;
    poll.measurements.push_back(std::move(m));
  }
  if (!poll.measurements.empty()) poll.changed = true;
  if (!reads.non_finite_objective ||
      poll.outcome == TrialPoll::Outcome::kInfeasible) {
    return absl::OkStatus();
  }
  // A diverged trainer: its value is no result, and what it reported before
  // is not its result either (Vizier's INFEASIBLE).
  if (run_) {
    run_->Terminate(limits_.termination_grace);
    run_.reset();
  }
  poll.changed = true;
  poll.outcome = TrialPoll::Outcome::kInfeasible;
  poll.reason = absl::StrCat("metric \"", metric_,
                             "\" is not a finite number in this report: ",
                             *reads.non_finite_objective);
  return Record(absl::StrCat("the trial is infeasible: ", poll.reason));
}

absl::Status TrialExecution::FailPermanently(const std::string& reason,
                                             std::vector<std::string> tail,
                                             TrialPoll& poll) {
  if (run_) {
    run_->Terminate(limits_.termination_grace);
    run_.reset();
  }
  poll.outcome = TrialPoll::Outcome::kFailed;
  poll.permanent = true;
  poll.reason = reason;
  poll.log_tail = std::move(tail);
  return Record(absl::StrCat("attempt ", attempt_, " failed: ", reason,
                             "; a permanent error: the trial fails without "
                             "restarts or re-runs"));
}

absl::Status TrialExecution::FailAttempt(const std::string& reason,
                                         TrialPoll& poll,
                                         const std::string& log_note) {
  if (run_) {
    run_->Terminate(limits_.termination_grace);
    run_.reset();
  }
  const int attempts = Attempts();
  if (attempt_ < attempts) {
    HPTUNE_RETURN_IF_ERROR(
        Record(absl::StrCat("attempt ", attempt_, " of ", attempts,
                            " failed: ", reason, "; re-running")));
    ++poll.restarts;
    HPTUNE_ASSIGN_OR_RETURN(bool started, StartAttempt());
    if (started) return absl::OkStatus();
    if (start_permanent_) return FailPermanently(start_error_, {}, poll);
    return FailAttempt(start_error_, poll);
  }
  poll.outcome = TrialPoll::Outcome::kFailed;
  poll.reason = absl::StrCat(reason, " (attempt ", attempt_, " of ", attempts,
                             ")", log_note);
  return Record(absl::StrCat("attempt ", attempt_, " of ", attempts,
                             " failed: ", reason, "; the trial fails"));
}

absl::StatusOr<TrialPoll> TrialExecution::Poll() {
  TrialPoll poll;
  if (start_failed_) {
    start_failed_ = false;
    poll.changed = true;
    if (start_permanent_) {
      HPTUNE_RETURN_IF_ERROR(FailPermanently(start_error_, {}, poll));
    } else {
      HPTUNE_RETURN_IF_ERROR(FailAttempt(start_error_, poll));
    }
    return poll;
  }
  HPTUNE_RETURN_IF_ERROR(CapLogs());
  HPTUNE_ASSIGN_OR_RETURN(launch::MetricReads reads, ReadMetrics());
  HPTUNE_RETURN_IF_ERROR(TakeReads(std::move(reads), poll));
  if (!run_) return poll;
  HPTUNE_ASSIGN_OR_RETURN(std::vector<launch::ReplicaExit> exits, run_->Poll());
  for (const launch::ReplicaExit& exit : exits) {
    poll.changed = true;
    const std::string name = ReplicaLabel(launch_.replicas[exit.replica]);
    if (exit.succeeded()) {
      HPTUNE_RETURN_IF_ERROR(Record(absl::StrCat(name, " exited with code 0")));
      if (exit.replica != 0) continue;  // A worker that is done.
      run_->Terminate(limits_.termination_grace);
      run_.reset();
      poll.outcome = TrialPoll::Outcome::kSucceeded;
      HPTUNE_RETURN_IF_ERROR(CapLogs(/*now=*/true));
      HPTUNE_ASSIGN_OR_RETURN(launch::MetricReads last, ReadMetrics());
      HPTUNE_RETURN_IF_ERROR(TakeReads(std::move(last), poll));
      if (poll.outcome == TrialPoll::Outcome::kSucceeded &&
          !objective_reported_ && !metric_.empty()) {
        // No value of the study's objective (another metric, lines that
        // are no report, nothing): no result for the designer, and a
        // trainer or config to fix.
        HPTUNE_RETURN_IF_ERROR(FailForNoObjective(poll));
      }
      return poll;
    }
    const std::filesystem::path& log = launch_.replicas[exit.replica].log_path;
    std::vector<std::string> tail = LogTail(env_, log);
    if (std::optional<std::string> cause =
            PermanentCause(exit, tail, !reported_names_.empty())) {
      HPTUNE_RETURN_IF_ERROR(
          FailPermanently(absl::StrCat(name, " ", Describe(exit), ": ", *cause,
                                       "; log: ", log.string()),
                          std::move(tail), poll));
      return poll;
    }
    int& restarts = restarts_[exit.replica];
    if (restarts < limits_.max_replica_restarts) {
      ++restarts;
      ++poll.restarts;
      HPTUNE_RETURN_IF_ERROR(
          Record(absl::StrCat(name, " ", Describe(exit), "; restart ", restarts,
                              " of ", limits_.max_replica_restarts)));
      absl::Status restarted = run_->Restart(exit.replica);
      if (restarted.ok()) continue;
      HPTUNE_RETURN_IF_ERROR(FailAttempt(
          absl::StrCat(name, " could not restart: ", restarted.message()),
          poll));
      return poll;
    }
    HPTUNE_RETURN_IF_ERROR(
        FailAttempt(absl::StrCat(name, " ", Describe(exit), " after ", restarts,
                                 " restarts"),
                    poll, LogNote(log, tail)));
    return poll;
  }
  return poll;
}

absl::StatusOr<std::vector<Measurement>> TrialExecution::Stop() {
  if (run_) {
    run_->Terminate(limits_.termination_grace);
    run_.reset();
  }
  HPTUNE_RETURN_IF_ERROR(CapLogs(/*now=*/true));
  // The trial is ending as the runner decided; a non-finite last value is
  // left out like any value that is no result.
  HPTUNE_ASSIGN_OR_RETURN(launch::MetricReads last, ReadMetrics());
  for (Measurement& m : last.measurements) m.attempt = attempt_;
  return std::move(last.measurements);
}

}  // namespace hptune::runner::internal
