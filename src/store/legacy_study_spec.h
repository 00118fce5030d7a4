// The study spec JSON that schema versions 1 to 5 stored (a flat parameter
// list, each child naming its parent), read once by the migration to
// version 6, which stores the canonical `hyperparameters` JSON
// (StudySpecToJson, hptune/core/config.h) instead.
//
// Used by src/store/schema.cc only. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_STORE_LEGACY_STUDY_SPEC_H_
#define HPTUNE_SRC_STORE_LEGACY_STUDY_SPEC_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/study.h"
#include "src/store/sqlite_connection.h"

namespace hptune::store::internal {

// DataLoss naming the field when `json` is not such a spec.
absl::StatusOr<StudySpec> DecodeLegacyStudySpec(std::string_view json);

// The migration's conversion, inside its transaction: every study's
// spec_json rewritten in the canonical form, its custom algorithm moved to
// custom_algorithm, and the trials a job resumed moved out of maxTrials
// (where versions 1 to 5 added them) into resumed_trials.
[[nodiscard]] absl::Status ConvertLegacyStudySpecs(SqliteConnection& db);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_LEGACY_STUDY_SPEC_H_
