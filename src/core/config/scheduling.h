// Reading `trainingInput.scheduling` (AI Platform's Scheduling) into a
// SchedulingSpec: the time limits after which the job is cancelled.
//
// Private to config parsing.
#ifndef HPTUNE_SRC_CORE_CONFIG_SCHEDULING_H_
#define HPTUNE_SRC_CORE_CONFIG_SCHEDULING_H_

#include "hptune/core/job.h"
#include "src/core/config/reader.h"

namespace hptune::config_internal {

// Reads the `scheduling` field of the trainingInput mapping `reader`, when
// present, reporting every problem through the reader's sink.
void ReadScheduling(MapReader& reader, SchedulingSpec* scheduling);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_SCHEDULING_H_
