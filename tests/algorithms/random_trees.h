// Random conditional search spaces for property tests: trees of parameters
// whose children hang under some of their parent's values, to depth 3.
#ifndef HPTUNE_TESTS_ALGORITHMS_RANDOM_TREES_H_
#define HPTUNE_TESTS_ALGORITHMS_RANDOM_TREES_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hptune/core/search_space.h"
#include "tests/algorithms/test_spaces.h"

namespace hptune::algorithms::testing {

struct RandomTreeOptions {
  bool doubles = true;      // DOUBLE leaves allowed (not for grid search).
  int max_values = 4;       // Values of a finite parameter: 1 to max_values.
  int max_depth = 3;        // Levels below the roots.
  int max_parameters = 12;  // Children stop once the space has this many.
};

class RandomTreeBuilder {
 public:
  RandomTreeBuilder(uint64_t seed, RandomTreeOptions options)
      : rng_(seed), options_(options) {}

  SearchSpace Build() {
    params_.clear();
    const int roots = Uniform(1, 3);
    for (int r = 0; r < roots; ++r) Add(std::nullopt, 0);
    return SearchSpace(params_);
  }

 private:
  int Uniform(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }

  // A parameter (under `condition`) and, depth first, its children.
  void Add(std::optional<ParentCondition> condition, int depth) {
    const std::string name = "p" + std::to_string(params_.size());
    const int kind = Uniform(options_.doubles ? 0 : 1, 3);
    const int n = Uniform(1, options_.max_values);
    ParameterSpec spec;
    if (kind == 0) {
      spec = DoubleParam(name, 0, 1);
    } else if (kind == 1) {
      spec = IntegerParam(name, -1, n - 2);
    } else if (kind == 2) {
      std::vector<double> values;
      for (int i = 0; i < n; ++i) values.push_back(0.5 * i);
      spec = DiscreteParam(name, values);
    } else {
      std::vector<std::string> values;
      for (int i = 0; i < n; ++i) values.push_back("v" + std::to_string(i));
      spec = CategoricalParam(name, values);
    }
    spec.condition = std::move(condition);
    params_.push_back(spec);
    if (kind == 0 || depth >= options_.max_depth) return;
    const int children = Uniform(0, 2);
    for (int c = 0; c < children; ++c) {
      if (static_cast<int>(params_.size()) >= options_.max_parameters) return;
      // Each value of the parent activates the child with probability 1/2
      // (at least one does).
      ParentCondition child{.parent = spec.name};
      for (int i = 0; i < n; ++i) {
        if (Uniform(0, 1) == 0 && i != n - 1) continue;
        if (kind == 1) child.int_values.push_back(i - 1);
        if (kind == 2) child.discrete_values.push_back(0.5 * i);
        if (kind == 3)
          child.categorical_values.push_back("v" + std::to_string(i));
      }
      Add(std::move(child), depth + 1);
    }
  }

  std::mt19937_64 rng_;
  RandomTreeOptions options_;
  std::vector<ParameterSpec> params_;
};

}  // namespace hptune::algorithms::testing

#endif  // HPTUNE_TESTS_ALGORITHMS_RANDOM_TREES_H_
