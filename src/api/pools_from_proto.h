// Private to src/api: a TrainingInput's scale tier and task pools (machine
// types, replica counts, accelerators, containers, environments) read into
// a JobSpec field by field, as a config file's reader reads the same fields
// (src/core/config/training_input.cc), with its messages for what only a
// message can get wrong. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_API_POOLS_FROM_PROTO_H_
#define HPTUNE_SRC_API_POOLS_FROM_PROTO_H_

#include <string>

#include "hptune/core/job.h"
#include "hptune/v1/job.pb.h"
#include "src/api/proto_reading.h"

namespace hptune::api::proto_internal {

// scaleTier and the four pools of `proto` (at `path`, "trainingInput") into
// `job`, completed (CompleteJob). The rules on the values are ValidateJob's,
// left to the caller; those the reader judges from which fields are set (a
// field a tier does not take, CUSTOM's required machine types) are told
// here.
void ReadTierAndPools(const v1::TrainingInput& proto, const std::string& path,
                      ProtoErrors& errors, JobSpec& job);

}  // namespace hptune::api::proto_internal

#endif  // HPTUNE_SRC_API_POOLS_FROM_PROTO_H_
