#include "src/runner/time_limits.h"

#include "absl/strings/str_cat.h"

namespace hptune::runner::internal {

std::optional<std::string> TimeLimitReached(
    const SchedulingSpec& limits, Timestamp now, Timestamp submitted,
    const std::optional<Timestamp>& started) {
  if (started && limits.max_running_time &&
      now - *started >= *limits.max_running_time) {
    return absl::StrCat(
        "maxRunningTime (", FormatDurationSeconds(*limits.max_running_time),
        ") reached: the job has run since ", FormatRfc3339(*started));
  }
  if (!started && limits.max_wait_time &&
      now - submitted >= *limits.max_wait_time) {
    return absl::StrCat("maxWaitTime (",
                        FormatDurationSeconds(*limits.max_wait_time),
                        ") reached: no trial has started running since the "
                        "job was submitted at ",
                        FormatRfc3339(submitted));
  }
  return std::nullopt;
}

}  // namespace hptune::runner::internal
