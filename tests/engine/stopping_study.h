// The study the engine's early-stopping tests share: one DOUBLE parameter
// "lr" in [0, 1], accuracy maximised, random search with seed 1, early
// stopping on by the study's default rule.
#ifndef HPTUNE_TESTS_ENGINE_STOPPING_STUDY_H_
#define HPTUNE_TESTS_ENGINE_STOPPING_STUDY_H_

#include "hptune/core/study.h"

namespace hptune::engine::testing {

inline StudySpec StoppingStudy(int max_trials, int max_parallel_trials) {
  StudySpec spec;
  spec.search_space = SearchSpace({{.name = "lr",
                                    .type = ParameterType::kDouble,
                                    .min_value = 0,
                                    .max_value = 1}});
  spec.SetSingleMetric("accuracy", Goal::kMaximize);
  spec.max_trials = max_trials;
  spec.max_parallel_trials = max_parallel_trials;
  spec.algorithm = Algorithm::kRandomSearch;
  spec.enable_early_stopping = true;
  spec.seed = 1;
  return spec;
}

}  // namespace hptune::engine::testing

#endif  // HPTUNE_TESTS_ENGINE_STOPPING_STUDY_H_
