// Small builders of parameter specs and trials for the algorithm tests.
#ifndef HPTUNE_TESTS_ALGORITHMS_TEST_SPACES_H_
#define HPTUNE_TESTS_ALGORITHMS_TEST_SPACES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hptune/core/search_space.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms::testing {

inline ParameterSpec DoubleParam(std::string name, double min, double max,
                                 ScaleType scale = ScaleType::kLinear) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::kDouble;
  spec.min_value = min;
  spec.max_value = max;
  spec.scale = scale;
  return spec;
}

inline ParameterSpec IntegerParam(std::string name, int64_t min, int64_t max,
                                  ScaleType scale = ScaleType::kLinear) {
  ParameterSpec spec = DoubleParam(std::move(name), static_cast<double>(min),
                                   static_cast<double>(max), scale);
  spec.type = ParameterType::kInteger;
  return spec;
}

inline ParameterSpec DiscreteParam(std::string name, std::vector<double> values,
                                   ScaleType scale = ScaleType::kNone) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::kDiscrete;
  spec.discrete_values = std::move(values);
  spec.scale = scale;
  return spec;
}

inline ParameterSpec CategoricalParam(std::string name,
                                      std::vector<std::string> values) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::kCategorical;
  spec.categorical_values = std::move(values);
  return spec;
}

inline Trial TrialAt(ParameterAssignment parameters,
                     TrialState state = TrialState::kSucceeded) {
  Trial trial;
  trial.parameters = std::move(parameters);
  trial.state = state;
  trial.origin = "user";
  return trial;
}

}  // namespace hptune::algorithms::testing

#endif  // HPTUNE_TESTS_ALGORITHMS_TEST_SPACES_H_
