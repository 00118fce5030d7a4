#include "src/jobs/job_log.h"

#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hptune::jobs {

JobLog::JobLog(std::string job_id, std::string metric, Sink sink,
               TrialLookup lookup)
    : job_id_(std::move(job_id)),
      metric_(std::move(metric)),
      sink_(std::move(sink)),
      lookup_(std::move(lookup)) {}

std::string JobLog::Escape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '\n') {
      escaped += "\\n";
    } else if (c == '\r') {
      escaped += "\\r";
    } else if (c == '\t') {
      escaped += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      absl::StrAppendFormat(&escaped, "\\x%02x", byte);
    } else {
      escaped += c;  // UTF-8 stays readable.
    }
  }
  return escaped;
}

void JobLog::Line(const std::string& text) const {
  // Trainer output, metric names and error messages reach the line: one
  // record is one line whatever they hold, so none forges another.
  if (sink_) sink_(Escape(absl::StrCat("job ", job_id_, ": ", text)));
}

void JobLog::Started() { Line("running"); }

std::string JobLog::DescribeEnd(const Trial& trial, const std::string& metric) {
  std::string text = absl::StrCat("trial ", trial.number, " ",
                                  std::string(ToString(trial.state)));
  if (trial.stopped_early) absl::StrAppend(&text, " (stopped early)");
  if (auto value = trial.FinalObjective(metric)) {
    absl::StrAppend(&text, ", ", metric, " ", absl::StrFormat("%.6g", *value),
                    " at step ", trial.final_measurement->step);
  }
  if (!trial.reason.empty()) absl::StrAppend(&text, ": ", trial.reason);
  return text;
}

void JobLog::Progress(const runner::JobProgress& progress) {
  const std::set<int64_t> now(progress.launched.begin(),
                              progress.launched.end());
  for (int64_t number : now) {
    if (!launched_.contains(number)) {
      Line(absl::StrCat("trial ", number, " started"));
    }
  }
  for (int64_t number : launched_) {
    if (now.contains(number)) continue;
    std::optional<Trial> trial = lookup_ ? lookup_(number) : std::nullopt;
    Line(trial ? DescribeEnd(*trial, metric_)
               : absl::StrCat("trial ", number, " ended"));
  }
  // Each warning once (a report a quota refused, ...): every snapshot
  // carries them all.
  for (; warned_ < progress.warnings.size(); ++warned_) {
    Line(absl::StrCat("warning: ", progress.warnings[warned_]));
  }
  launched_ = now;
}

void JobLog::Ended(JobState state, const std::string& message) {
  // Trials the job's end stopped (a cancel, maxFailedTrials) end with it.
  Progress(runner::JobProgress{});
  Line(absl::StrCat(std::string(ToString(state)), message.empty() ? "" : ": ",
                    message));
}

}  // namespace hptune::jobs
