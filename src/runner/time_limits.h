// The trainingInput.scheduling limits of a job (AI Platform's maxWaitTime
// and maxRunningTime), as the job's message once one is reached.
// Used by JobRun; pure and thread-safe.
#ifndef HPTUNE_SRC_RUNNER_TIME_LIMITS_H_
#define HPTUNE_SRC_RUNNER_TIME_LIMITS_H_

#include <optional>
#include <string>

#include "hptune/core/job.h"
#include "hptune/core/time.h"

namespace hptune::runner::internal {

// maxRunningTime counts from `started` (when the job entered RUNNING, as
// stored, so a resumed job keeps its deadline); maxWaitTime from
// `submitted` while the job has not started. nullopt while within both.
std::optional<std::string> TimeLimitReached(
    const SchedulingSpec& limits, Timestamp now, Timestamp submitted,
    const std::optional<Timestamp>& started);

}  // namespace hptune::runner::internal

#endif  // HPTUNE_SRC_RUNNER_TIME_LIMITS_H_
