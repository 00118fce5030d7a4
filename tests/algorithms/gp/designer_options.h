// The DesignerOptions the GP designer's tests create it with: what a study
// of `spec` alone gives its designer (no trials resumed from another job),
// as DesignerRegistry::Create passes them.
#ifndef HPTUNE_TESTS_ALGORITHMS_GP_DESIGNER_OPTIONS_H_
#define HPTUNE_TESTS_ALGORITHMS_GP_DESIGNER_OPTIONS_H_

#include "hptune/algorithms/designer.h"
#include "hptune/core/study.h"

namespace hptune::algorithms::gp {

inline DesignerOptions OptionsOf(const StudySpec& spec) {
  return DesignerOptions{.seeding_trials = spec.seeding_trials,
                         .trial_budget = spec.max_trials};
}

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_TESTS_ALGORITHMS_GP_DESIGNER_OPTIONS_H_
