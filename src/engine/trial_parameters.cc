// TuningEngine::AddTrialParameter: a define-by-run study's space grows by
// the parameters its trials suggest (docs/api.md, "Define-by-run").
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hptune/algorithms/registry.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/engine/engine.h"
#include "src/engine/engine_common.h"
#include "src/engine/study_locks.h"

namespace hptune::engine {
namespace {

// OK unless the study is one whose trainers or designer cannot take a
// parameter its config lacks (a job's, a custom designer's): such a study
// neither grows nor leaves parameters out.
absl::Status CheckSpaceCanGrow(store::Store& store, const StudyRecord& study) {
  absl::StatusOr<JobRecord> job = store.GetJob(study.name);  // Its ID.
  if (job.ok() && job->study_name == study.name) {
    return absl::FailedPreconditionError(absl::StrCat(
        "study ", Quoted(study.name),
        " is job's: its trainers take the parameters of the job's config "
        "as flags, so a parameter cannot join it"));
  }
  if (!absl::IsNotFound(job.status())) return job.status();
  if (!study.spec.custom_algorithm.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "study ", Quoted(study.name), " is searched by the custom designer ",
        Quoted(study.spec.custom_algorithm),
        ", which may not read a grown space; declare every parameter in "
        "its config"));
  }
  return absl::OkStatus();
}

// InvalidArgument unless each of `names` is a parameter `space` lets a
// trial lack.
absl::Status CheckMayBeLeftOut(const SearchSpace& space,
                               const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    const ParameterSpec* spec = space.Find(names[i]);
    if (spec != nullptr && spec->first_trial > 0) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "unused_parameters[", i, "]: ", Quoted(names[i]),
        spec == nullptr ? " is not a parameter of the study"
                        : " is a parameter of the study's config, which "
                          "every trial has; only one that joined later "
                          "(define-by-run) may be left out"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Trial> TuningEngine::AddTrialParameter(
    std::string_view study_name, int64_t trial, ParameterSpec spec) {
  // Serialised with the study's suggestions, which read its space.
  StudyLock lock(*study_locks_, study_name);
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  HPTUNE_RETURN_IF_ERROR(CheckSpaceCanGrow(store_, study));
  // A known name is drawn from its stored spec; the store refuses another.
  const ParameterSpec* known = study.spec.search_space.Find(spec.name);
  if (known == nullptr) {
    spec.first_trial = std::max<int64_t>(trial, 1);  // The store's, too.
    HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(
        ValidateJoiningParameter(study.spec, spec, "spec")));
  }
  const ParameterValue value = algorithms::DrawJoiningValue(
      known != nullptr ? *known : spec, study.seed, trial);
  return store_.AddTrialParameter(study_name, trial, spec, value);
}

absl::StatusOr<Trial> TuningEngine::LeaveOutUnusedParameters(
    std::string_view study_name, int64_t trial,
    const std::vector<std::string>& unused) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  // A job's trainers got every parameter as a flag: none was unused.
  HPTUNE_RETURN_IF_ERROR(CheckSpaceCanGrow(store_, study));
  // A space only grows, so what may be left out now always may.
  HPTUNE_RETURN_IF_ERROR(CheckMayBeLeftOut(study.spec.search_space, unused));
  return store_.UpdateTrial(study_name, trial, [&](Trial& t) -> absl::Status {
    if (IsTerminal(t.state)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "trial ", t.number, " is ", std::string(ToString(t.state)),
          "; only a pending trial's parameters may be left out"));
    }
    for (const std::string& name : unused) t.parameters.erase(name);
    return absl::OkStatus();
  });
}

}  // namespace hptune::engine
