// Inferred branches: the conditional tree a define-by-run study's trials
// show, for its designer.
//
// A study that learns its space from suggest_* calls (docs/python.md,
// "Define-by-run") stores every parameter as a root; one that joined after
// the first trial may be missing from a trial (ParameterSpec::first_trial),
// as the parameters of an `if kind == "svm":` branch are missing where the
// branch was not taken. Seen as roots, the designer proposes a value for
// every branch's parameters and its acquisition counts the branches not
// taken, whose values the trial then drops. The engine hands its designer
// the tree below instead (TuningEngine::SuggestTrials), as a config that
// declares `conditionalParameterSpecs` would; the stored space is unchanged.
// Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_INFERRED_BRANCHES_H_
#define HPTUNE_ALGORITHMS_INFERRED_BRANCHES_H_

#include <optional>
#include <vector>

#include "hptune/core/search_space.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

// `space` with each root parameter p that joined later (first_trial > 0)
// made a child of the first parameter q declared before it that explains
// it, activated by the values V that q took where p was present. q (a
// CATEGORICAL, INTEGER or DISCRETE parameter) explains p when, over the
// trials of `ended` that a client completed (SUCCEEDED: those that left
// out the parameters they did not suggest), p is present exactly
// where q has a value in V, q took some value outside V, and a trial from
// p's first trial on lacks p (a parameter merely added to the code later is
// in every trial since). q may itself be a child found this way. nullopt
// when no parameter is explained.
std::optional<SearchSpace> InferBranches(const SearchSpace& space,
                                         const std::vector<Trial>& ended);

// Drops from each of `trials` the parameters `space` makes inactive in it
// (SearchSpace::ActiveMask): a pending trial was given every root.
void KeepActiveParameters(const SearchSpace& space, std::vector<Trial>& trials);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_INFERRED_BRANCHES_H_
