// Private to src/api: a study's early-stopping settings block read from a
// StudySpec message, as the config reader reads `convexStopping` and
// `earlyStoppingSettings` (src/core/config/stopping_block.cc), so that a
// request and a file give the same StoppingSettings. The rule's factory
// decodes and checks the values later. Used by study_from_proto.cc. Pure
// functions; thread-safe.
#ifndef HPTUNE_SRC_API_STOPPING_FROM_PROTO_H_
#define HPTUNE_SRC_API_STOPPING_FROM_PROTO_H_

#include <string>

#include "hptune/core/study.h"
#include "hptune/v1/study.pb.h"
#include "src/api/proto_reading.h"

namespace hptune::api::proto_internal {

// Fills spec.stopping_settings from `proto`'s convex_stopping or
// early_stopping_settings; errors under `path` (the request's spec field).
void ReadStoppingSettings(const v1::StudySpec& proto, const std::string& path,
                          ProtoErrors& errors, StudySpec& spec);

}  // namespace hptune::api::proto_internal

#endif  // HPTUNE_SRC_API_STOPPING_FROM_PROTO_H_
