// Private to src/api: reading a v1::StudySpec's fields into a StudySpec
// without its rules, for the requests that carry one (CreateStudy's spec,
// a TrainingInput's hyperparameters), which then apply the rules of the
// whole they belong to. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_API_STUDY_FROM_PROTO_H_
#define HPTUNE_SRC_API_STUDY_FROM_PROTO_H_

#include <string>

#include "hptune/core/study.h"
#include "hptune/v1/study.pb.h"
#include "src/api/proto_reading.h"

namespace hptune::api::proto_internal {

// The spec at `path` ("spec", "trainingInput.hyperparameters"): its typed
// fields, with what only a message can get wrong (an unknown enum number,
// an unset required field, NaN) told in `errors` as a config file's reader
// tells it for the same field. ValidateStudySpec's rules are the caller's.
StudySpec ReadStudySpec(const v1::StudySpec& proto, const std::string& path,
                        ProtoErrors& errors);

}  // namespace hptune::api::proto_internal

#endif  // HPTUNE_SRC_API_STUDY_FROM_PROTO_H_
