// quality_harness: simple regret of hptune's designers on the test-function
// suite over seeds, sequential and with simulated asynchronous workers.
// Usage: see HarnessUsage() (benchmarks/quality/harness_flags.cc) or --help.
// Each (function, designer, mode, seed) run is independent and has its own
// designers, so runs go to a pool of --threads threads.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmarks/quality/designer_run.h"
#include "benchmarks/quality/harness_flags.h"
#include "benchmarks/quality/regret_table.h"
#include "benchmarks/quality/test_functions.h"
#include "benchmarks/quality/trial_log.h"

namespace hptune::quality {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct RunJob {
  const TestFunction* function;
  std::string designer;
  WorkerMode mode;
  uint64_t seed;
  // Filled in by the worker thread that runs it.
  std::vector<RunTrial> trials;
  double seconds = 0;
};

// Progress lines on stderr: every run on a terminal (overwriting one line),
// every tenth of the work otherwise, so logs stay short.
class Progress {
 public:
  explicit Progress(size_t total)
      : total_(total), tty_(isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}

  void RunDone(const RunJob& job) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    const bool milestone = done_ * 10 / total_ != (done_ - 1) * 10 / total_;
    if (!tty_ && !milestone) return;
    const double elapsed = SecondsSince(start_);
    const double eta = elapsed / done_ * (total_ - done_);
    std::fprintf(stderr,
                 "%squality_harness: %zu/%zu runs, %.0f s, ~%.0f s left"
                 " (last: %s %s %s seed %llu)%s",
                 tty_ ? "\r\033[K" : "", done_, total_, elapsed, eta,
                 job.function->name.c_str(), job.designer.c_str(),
                 job.mode.name.c_str(),
                 static_cast<unsigned long long>(job.seed),
                 tty_ && done_ < total_ ? "" : "\n");
    std::fflush(stderr);
  }

 private:
  std::mutex mutex_;
  const size_t total_;
  const bool tty_;
  const Clock::time_point start_;
  size_t done_ = 0;
};

// Runs every job on `threads` threads; the first error stops the others.
absl::Status RunAll(std::vector<RunJob>& jobs, int budget, int threads) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  absl::Status error;
  Progress progress(jobs.size());
  auto work = [&] {
    for (size_t i = next++; i < jobs.size() && !failed; i = next++) {
      RunJob& job = jobs[i];
      const Clock::time_point start = Clock::now();
      auto trials = RunDesignerTrials(
          *job.function, {.algorithm = *DesignerAlgorithm(job.designer),
                          .seed = job.seed,
                          .budget = budget,
                          .workers = job.mode.workers});
      if (!trials.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (error.ok()) error = trials.status();
        failed = true;
        return;
      }
      job.trials = *std::move(trials);
      job.seconds = SecondsSince(start);
      progress.RunDone(job);
    }
  };
  std::vector<std::thread> pool;
  const int n = std::min<int>(threads, static_cast<int>(jobs.size()));
  for (int i = 0; i < n; ++i) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  return error;
}

// Per designer and mode: runs, median and total seconds per run (each run to
// the largest budget; with several threads, times include their contention).
void PrintTimings(const std::vector<RunJob>& jobs, double wall_seconds,
                  int threads) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> seconds;
  for (const RunJob& job : jobs) {
    seconds[{job.designer, job.mode.name}].push_back(job.seconds);
  }
  for (auto& [key, s] : seconds) {
    double total = 0;
    for (double x : s) total += x;
    std::fprintf(stderr,
                 "quality_harness: %s %s: %zu runs, median %.3f s per run, "
                 "%.1f s in all\n",
                 key.first.c_str(), key.second.c_str(), s.size(), Median(s),
                 total);
  }
  std::fprintf(stderr,
               "quality_harness: %zu runs in %.1f s wall on %d threads\n",
               jobs.size(), wall_seconds, threads);
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::fputs(HarnessUsage().c_str(), stdout);
      return 0;
    }
  }
  auto options = ParseHarnessFlags(args);
  if (!options.ok()) {
    std::fprintf(stderr, "quality_harness: %s\n",
                 std::string(options.status().message()).c_str());
    return 2;
  }
  const int budget = options->budgets.back();
  std::vector<RunJob> jobs;
  for (const TestFunction* function : options->functions) {
    for (const std::string& designer : options->designers) {
      for (const WorkerMode& mode : options->modes) {
        for (int seed = 1; seed <= options->seeds; ++seed) {
          jobs.push_back({.function = function,
                          .designer = designer,
                          .mode = mode,
                          .seed = static_cast<uint64_t>(seed)});
        }
      }
    }
  }
  const Clock::time_point start = Clock::now();
  if (absl::Status s = RunAll(jobs, budget, options->threads); !s.ok()) {
    std::fprintf(stderr, "quality_harness: %s\n",
                 std::string(s.message()).c_str());
    return 1;
  }
  PrintTimings(jobs, SecondsSince(start), options->threads);

  if (options->format == OutputFormat::kTrials) {
    std::string out = absl::StrCat(kTrialsCsvHeader, "\n");
    for (const RunJob& job : jobs) {
      absl::StrAppend(
          &out, FormatTrialsCsv(job.designer, *job.function, job.mode.name,
                                static_cast<int>(job.seed), job.trials));
    }
    std::fputs(out.c_str(), stdout);
    return 0;
  }
  if (options->format == OutputFormat::kRuns) {
    std::vector<RunRegret> runs;
    for (int budget : options->budgets) {
      for (const RunJob& job : jobs) {
        runs.push_back({.designer = job.designer,
                        .function = job.function->name,
                        .mode = job.mode.name,
                        .budget = budget,
                        .seed = static_cast<int>(job.seed),
                        .regret = SimpleRegret(job.trials, budget,
                                               job.function->optimum)});
      }
    }
    std::fputs(FormatRunsCsv(runs).c_str(), stdout);
    return 0;
  }

  // Jobs are grouped by (function, designer, mode), seeds consecutive.
  std::vector<RegretRow> rows;
  for (const TestFunction* function : options->functions) {
    for (int budget : options->budgets) {
      for (const WorkerMode& mode : options->modes) {
        for (const std::string& designer : options->designers) {
          std::vector<double> regrets;
          for (const RunJob& job : jobs) {
            if (job.function == function && job.designer == designer &&
                job.mode == mode) {
              regrets.push_back(
                  SimpleRegret(job.trials, budget, function->optimum));
            }
          }
          RegretRow row{.designer = designer,
                        .function = function->name,
                        .mode = mode.name,
                        .budget = budget};
          SummarizeRegrets(std::move(regrets), row);
          rows.push_back(std::move(row));
        }
      }
    }
  }
  const std::string out = options->format == OutputFormat::kCsv
                              ? FormatCsv(rows)
                              : FormatTable(rows);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace
}  // namespace hptune::quality

int main(int argc, char** argv) { return hptune::quality::Main(argc, argv); }
