#include "algorithms/encoding/gp_features.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "algorithms/encoding/unit_cube.h"
#include "hptune/core/check.h"
#include "hptune/core/status.h"

namespace hptune::algorithms {
namespace {

// The category index nearest to a relaxed index.
int CategoryIndex(double value, int n) {
  if (!(value > 0)) return 0;  // Also NaN.
  return static_cast<int>(
      std::min(std::floor(value + 0.5), static_cast<double>(n - 1)));
}

}  // namespace

absl::StatusOr<FeatureEncoding> FeatureEncoding::Create(
    const SearchSpace& space) {
  HPTUNE_RETURN_IF_ERROR(ValidateForEncoding(space));
  std::vector<Feature> features;
  ParameterAssignment constants;
  const auto& parameters = space.parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    const ParameterSpec& spec = parameters[i];
    std::optional<int64_t> cardinality = spec.Cardinality();
    if (cardinality && *cardinality == 1) {
      constants.emplace(spec.name, algorithms::Decode(spec, 0.5));
      continue;
    }
    Feature feature;
    feature.parameter = static_cast<int>(i);
    feature.discrete = cardinality.has_value();
    if (spec.type == ParameterType::kCategorical) {
      feature.kind = FeatureKind::kCategorical;
      feature.num_categories = static_cast<int>(*cardinality);
    }
    features.push_back(feature);
  }
  return FeatureEncoding(space, std::move(features), std::move(constants));
}

std::vector<FeatureKind> FeatureEncoding::kinds() const {
  std::vector<FeatureKind> kinds;
  for (const Feature& f : features_) kinds.push_back(f.kind);
  return kinds;
}

absl::StatusOr<std::vector<double>> FeatureEncoding::Encode(
    const ParameterAssignment& assignment) const {
  std::vector<double> x;
  x.reserve(features_.size());
  for (const Feature& f : features_) {
    const ParameterSpec& spec = space_.parameters()[f.parameter];
    auto it = assignment.find(spec.name);
    if (it == assignment.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", spec.name, "\" has no value"));
    }
    HPTUNE_ASSIGN_OR_RETURN(double u, algorithms::Encode(spec, it->second));
    if (f.kind == FeatureKind::kCategorical) {
      // Encode gives the centre (i + 1/2) / n of category i's interval.
      u = std::floor(u * f.num_categories);
    }
    x.push_back(u);
  }
  return x;
}

ParameterAssignment FeatureEncoding::Decode(std::span<const double> x) const {
  HPTUNE_CHECK(x.size() == features_.size(),
               "FeatureEncoding::Decode: one coordinate per feature expected");
  ParameterAssignment assignment = constants_;
  for (size_t i = 0; i < features_.size(); ++i) {
    const Feature& f = features_[i];
    const ParameterSpec& spec = space_.parameters()[f.parameter];
    if (f.kind == FeatureKind::kCategorical) {
      assignment.emplace(
          spec.name,
          ParameterValue::Categorical(
              spec.categorical_values[CategoryIndex(x[i], f.num_categories)]));
    } else {
      assignment.emplace(spec.name,
                         algorithms::Decode(spec, std::clamp(x[i], 0.0, 1.0)));
    }
  }
  return assignment;
}

double FeatureEncoding::SnapOne(int i, double value) const {
  const Feature& f = features_[i];
  if (f.kind == FeatureKind::kCategorical) {
    return CategoryIndex(value, f.num_categories);
  }
  double u = std::isnan(value) ? 0.0 : std::clamp(value, 0.0, 1.0);
  if (!f.discrete) return u;
  const ParameterSpec& spec = space_.parameters()[f.parameter];
  // Decode gives a feasible value, so Encode cannot fail.
  return *algorithms::Encode(spec, algorithms::Decode(spec, u));
}

void FeatureEncoding::Snap(std::span<double> x) const {
  HPTUNE_CHECK(x.size() == features_.size(),
               "FeatureEncoding::Snap: one coordinate per feature expected");
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = SnapOne(static_cast<int>(i), x[i]);
  }
}

std::vector<double> FeatureEncoding::Neighbours(int i, double value) const {
  const Feature& f = features_.at(i);
  std::vector<double> neighbours;
  if (!f.discrete) return neighbours;
  if (f.kind == FeatureKind::kCategorical) {
    const int current = CategoryIndex(value, f.num_categories);
    for (int c = 0; c < f.num_categories; ++c) {
      if (c != current) neighbours.push_back(c);
    }
    return neighbours;
  }
  const ParameterSpec& spec = space_.parameters()[f.parameter];
  const ParameterValue v =
      algorithms::Decode(spec, std::clamp(value, 0.0, 1.0));
  if (spec.type == ParameterType::kInteger) {
    const int64_t k = v.AsInteger();
    for (int64_t next : {k - 1, k + 1}) {
      const auto as_double = static_cast<double>(next);
      if (as_double >= spec.min_value && as_double <= spec.max_value) {
        neighbours.push_back(
            *algorithms::Encode(spec, ParameterValue::Integer(next)));
      }
    }
    return neighbours;
  }
  // DISCRETE: the values before and after v in the list.
  const auto& values = spec.discrete_values;
  const auto it = std::lower_bound(values.begin(), values.end(), v.AsDouble());
  const auto index = it - values.begin();
  for (auto j : {index - 1, index + 1}) {
    if (j >= 0 && j < static_cast<std::ptrdiff_t>(values.size())) {
      neighbours.push_back(*algorithms::Encode(
          spec, ParameterValue::Double(values[static_cast<size_t>(j)])));
    }
  }
  return neighbours;
}

}  // namespace hptune::algorithms
