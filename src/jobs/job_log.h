// JobLog: the lines `hptune serve` logs of a job it runs, one per job start
// and end and one per trial start and end, e.g.
//   job mnist_1: trial 3 started
//   job mnist_1: trial 3 SUCCEEDED, accuracy 0.9412 at step 300
//   job mnist_1: trial 4 FAILED: master-0 exited with code 1: ...
//   job mnist_1: warning: trial 5: reports not stored from here on: ...
// Built from the runner's progress snapshots. Used by JobManager, one per
// job, from that job's thread; not thread-safe.
#ifndef HPTUNE_SRC_JOBS_JOB_LOG_H_
#define HPTUNE_SRC_JOBS_JOB_LOG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "hptune/core/job.h"
#include "hptune/core/trial.h"
#include "hptune/runner/job_runner.h"

namespace hptune::jobs {

class JobLog {
 public:
  // Where a line goes (without its newline).
  using Sink = std::function<void(const std::string&)>;
  // A trial of the job by number, as stored now; nullopt when it cannot be
  // read.
  using TrialLookup = std::function<std::optional<Trial>(int64_t)>;

  JobLog(std::string job_id, std::string metric, Sink sink, TrialLookup lookup);

  // "job J: running": its runner started (after a submit or a resume).
  void Started();
  // Logs the trials that started or ended since the last snapshot.
  void Progress(const runner::JobProgress& progress);
  // "job J: SUCCEEDED" or "job J: FAILED: <message>".
  void Ended(JobState state, const std::string& message);

  // "trial 3 SUCCEEDED, accuracy 0.9412 at step 300", "trial 4 FAILED:
  // <reason>": a trial that ended, as the log and `hptune run` say it.
  static std::string DescribeEnd(const Trial& trial, const std::string& metric);

  // `text` with a backslash, newline, carriage return and tab written as
  // \\, \n, \r and \t and other control characters as \xNN: what every
  // line passes through, so a line never holds a line break.
  static std::string Escape(std::string_view text);

 private:
  void Line(const std::string& text) const;

  const std::string job_id_;
  const std::string metric_;
  const Sink sink_;
  const TrialLookup lookup_;
  std::set<int64_t> launched_;
  size_t warned_ = 0;  // JobProgress::warnings already logged.
};

}  // namespace hptune::jobs

#endif  // HPTUNE_SRC_JOBS_JOB_LOG_H_
