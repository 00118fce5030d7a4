// ProgressPrinter: the live progress line of `hptune run`.
//
// On a terminal it rewrites one status line in place; otherwise (a log file,
// a test) it prints a line each time the counts change, so logs stay short.
// Either way the line ends in the elapsed time and an estimate of the rest.
// Warnings and each newly failed trial's reason get a line of their own,
// above the status line, once.
// Used only by src/cli; called from the job runner's thread.
#ifndef HPTUNE_CLI_PROGRESS_H_
#define HPTUNE_CLI_PROGRESS_H_

#include <chrono>
#include <ostream>
#include <string>

#include "hptune/core/time.h"
#include "hptune/env/clock.h"
#include "hptune/runner/job_runner.h"

namespace hptune::cli {

// "trials 5/12 done (1 stopped early), 3 running, 1 failed, 2 restarts;
// best accuracy 0.9412 (trial 4)", with ", 2 queued on the cluster" after
// "running" while Slurm jobs wait for resources.
std::string ProgressLine(const runner::JobProgress& progress,
                         const std::string& metric);

// " [1:05 elapsed, about 2:10 left]": the time since the start and, once a
// trial has finished, the rest at the pace so far
// (elapsed x (maxTrials - done) / done).
std::string TimeNote(std::chrono::seconds elapsed, int done, int max_trials);

class ProgressPrinter {
 public:
  // `clock` gives the elapsed time, from this construction on.
  ProgressPrinter(std::ostream& out, std::string metric, bool live, bool quiet,
                  Clock& clock);
  void Update(const runner::JobProgress& progress);
  // Ends the live line.
  void Finish();

 private:
  std::ostream& out_;
  const std::string metric_;
  const bool live_;
  const bool quiet_;
  Clock& clock_;
  const Timestamp start_;
  std::string last_;
  size_t warnings_shown_ = 0;
  std::string failure_shown_;
};

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_PROGRESS_H_
