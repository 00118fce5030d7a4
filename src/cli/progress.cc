#include "src/cli/progress.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hptune::cli {

std::string ProgressLine(const runner::JobProgress& p,
                         const std::string& metric) {
  std::string line =
      absl::StrCat("trials ", p.succeeded + p.failed + p.infeasible, "/",
                   p.max_trials, " done");
  if (p.stopped_early > 0) {
    absl::StrAppend(&line, " (", p.stopped_early, " stopped early)");
  }
  absl::StrAppend(&line, ", ", p.running, " running");
  if (!p.waiting_in_backend.empty()) {
    absl::StrAppend(&line, ", ", p.waiting_in_backend.size(),
                    " queued on the cluster");
  }
  absl::StrAppend(&line, ", ", p.failed, " failed");
  if (p.infeasible > 0)
    absl::StrAppend(&line, ", ", p.infeasible, " infeasible");
  if (p.restarts > 0) {
    absl::StrAppend(&line, ", ", p.restarts,
                    p.restarts == 1 ? " restart" : " restarts");
  }
  if (p.queued > 0) absl::StrAppend(&line, ", waiting for GPUs");
  if (p.best) {
    if (auto value = p.best->FinalObjective(metric)) {
      // Six significant digits: a status line, not the record (the trial
      // table has full precision).
      absl::StrAppend(&line, "; best ", metric, " ",
                      absl::StrFormat("%.6g", *value), " (trial ",
                      p.best->number, ")");
    }
  }
  return line;
}

namespace {

// "42s", "3:05", "1:02:03".
std::string Clock(std::chrono::seconds t) {
  const int64_t s = t.count();
  if (s < 60) return absl::StrCat(s, "s");
  if (s < 3600) return absl::StrFormat("%d:%02d", s / 60, s % 60);
  return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
}

}  // namespace

std::string TimeNote(std::chrono::seconds elapsed, int done, int max_trials) {
  std::string note = absl::StrCat(" [", Clock(elapsed), " elapsed");
  if (done > 0 && done < max_trials) {
    absl::StrAppend(&note, ", about ",
                    Clock(elapsed * (max_trials - done) / done), " left");
  }
  return note + "]";
}

ProgressPrinter::ProgressPrinter(std::ostream& out, std::string metric,
                                 bool live, bool quiet, hptune::Clock& clock)
    : out_(out),
      metric_(std::move(metric)),
      live_(live),
      quiet_(quiet),
      clock_(clock),
      start_(clock.Now()) {}

void ProgressPrinter::Update(const runner::JobProgress& progress) {
  std::vector<std::string> notes;
  // Warnings are no progress: --quiet shows them too.
  for (; warnings_shown_ < progress.warnings.size(); ++warnings_shown_) {
    notes.push_back(
        absl::StrCat("warning: ", progress.warnings[warnings_shown_]));
  }
  if (!quiet_ && progress.last_failure != failure_shown_) {
    failure_shown_ = progress.last_failure;
    notes.push_back(absl::StrCat("failed: ", progress.last_failure));
  }
  for (const std::string& note : notes) {
    // Over the live line, which is written again below.
    if (live_) out_ << "\r\x1b[K";
    out_ << note << "\n";
    last_.clear();
  }
  if (quiet_) return;
  std::string line = ProgressLine(progress, metric_);
  if (line == last_) return;
  // Not part of `last_`: a new line is for new counts, not a new second.
  const std::string time = TimeNote(
      std::chrono::duration_cast<std::chrono::seconds>(clock_.Now() - start_),
      progress.succeeded + progress.failed + progress.infeasible,
      progress.max_trials);
  if (live_) {
    // \r and clear-to-end-of-line: the line shrinks as well as grows.
    out_ << "\r" << line << time << "\x1b[K" << std::flush;
  } else {
    out_ << line << time << "\n";
  }
  last_ = std::move(line);
}

void ProgressPrinter::Finish() {
  if (live_ && !quiet_ && !last_.empty()) out_ << "\n";
}

}  // namespace hptune::cli
