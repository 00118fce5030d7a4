// Small helpers the TuningEngine's source files share (engine.cc,
// suggestions.cc, trial_results.cc). Internal to the engine; pure
// functions, thread-safe.
#ifndef HPTUNE_SRC_ENGINE_ENGINE_COMMON_H_
#define HPTUNE_SRC_ENGINE_ENGINE_COMMON_H_

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "hptune/core/study.h"

namespace hptune::engine {

inline std::string Quoted(std::string_view s) {
  return absl::StrCat("\"", std::string(s), "\"");
}

// The spec a designer plans with: its budget is every trial of the study,
// the resumed ones included, which count towards the GP's seeding.
inline StudySpec DesignerSpec(const StudyRecord& study) {
  StudySpec spec = study.spec;
  spec.max_trials = study.TrialBudget();
  return spec;
}

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_ENGINE_COMMON_H_
