#include "src/cli/seeding_note.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hptune/algorithms/registry.h"

namespace hptune::cli {

std::string SeedingNote(const StudySpec& spec) {
  const int seeding = algorithms::GpSeedingTrials(spec, spec, spec.max_trials);
  if (seeding == 0) return "";
  if (spec.max_trials <= seeding) {
    return absl::StrCat("all ", spec.max_trials,
                        " trials are quasi-random seeding: the GP chooses "
                        "trials only after its first ",
                        seeding);
  }
  return absl::StrCat("the first ", seeding, " of ", spec.max_trials,
                      " trials are quasi-random seeding; the GP chooses the "
                      "other ",
                      spec.max_trials - seeding);
}

std::string SeedingWarning(const StudySpec& spec) {
  const int seeding = algorithms::GpSeedingTrials(spec, spec, spec.max_trials);
  if (seeding == 0) return "";
  const int modelled = std::max(0, spec.max_trials - seeding);
  if (modelled >= kFewGpTrials) return "";
  return absl::StrCat(
      "maxTrials (", spec.max_trials, ") leaves the GP ", modelled,
      modelled == 1 ? " trial" : " trials", " after its ", seeding,
      " seeding trials: give maxTrials ", seeding + kFewGpTrials,
      " or more for it to choose ", kFewGpTrials);
}

}  // namespace hptune::cli
