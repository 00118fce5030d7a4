#include "algorithms/encoding/gp_features.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

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

FeatureEncoding::FeatureEncoding(SearchSpace space,
                                 std::vector<Feature> features,
                                 std::vector<int> feature_of,
                                 std::vector<ParameterValue> constants)
    : space_(std::move(space)),
      features_(std::move(features)),
      feature_of_(std::move(feature_of)),
      constants_(std::move(constants)) {
  const int n = static_cast<int>(space_.parameters().size());
  parent_of_.assign(n, -1);
  is_parent_.assign(n, false);
  for (int i = 0; i < n; ++i) {
    parent_of_[i] = space_.ParentIndex(i);
    if (parent_of_[i] < 0) continue;
    conditional_ = true;
    is_parent_[parent_of_[i]] = true;
    if (feature_of_[i] >= 0) features_[feature_of_[i]].conditional = true;
    if (feature_of_[parent_of_[i]] >= 0) {
      features_[feature_of_[parent_of_[i]]].parent = true;
    }
  }
}

absl::StatusOr<FeatureEncoding> FeatureEncoding::Create(
    const SearchSpace& space) {
  HPTUNE_RETURN_IF_ERROR(ValidateForEncoding(space));
  std::vector<Feature> features;
  std::vector<int> feature_of;
  std::vector<ParameterValue> constants;
  const auto& parameters = space.parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    const ParameterSpec& spec = parameters[i];
    // Activity is computed in one pass in order, so a parent comes first.
    if (spec.condition) {
      const int parent = space.ParentIndex(static_cast<int>(i));
      if (parent < 0 || parent >= static_cast<int>(i)) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter \"", spec.name, "\" needs its parent \"",
                         spec.condition->parent, "\" before it"));
      }
      if (parameters[parent].type == ParameterType::kDouble) {
        return absl::InvalidArgumentError(absl::StrCat(
            "parameter \"", spec.name, "\": its parent \"",
            spec.condition->parent, "\" is DOUBLE, which cannot be a parent"));
      }
    }
    std::optional<int64_t> cardinality = spec.Cardinality();
    if (cardinality && *cardinality == 1) {
      feature_of.push_back(-1);
      constants.push_back(algorithms::Decode(spec, 0.5));
      continue;
    }
    Feature feature;
    feature.parameter = static_cast<int>(i);
    feature.discrete = cardinality.has_value();
    if (spec.type == ParameterType::kCategorical) {
      feature.kind = FeatureKind::kCategorical;
      feature.num_categories = static_cast<int>(*cardinality);
      feature.imputed = feature.num_categories;
    }
    feature_of.push_back(static_cast<int>(features.size()));
    constants.emplace_back();
    features.push_back(feature);
  }
  return FeatureEncoding(space, std::move(features), std::move(feature_of),
                         std::move(constants));
}

std::vector<FeatureKind> FeatureEncoding::kinds() const {
  std::vector<FeatureKind> kinds;
  for (const Feature& f : features_) kinds.push_back(f.kind);
  return kinds;
}

ParameterValue FeatureEncoding::ValueAt(int p,
                                        std::span<const double> x) const {
  const int i = feature_of_[p];
  if (i < 0) return constants_[p];
  const Feature& f = features_[i];
  const ParameterSpec& spec = space_.parameters()[p];
  if (f.kind == FeatureKind::kCategorical) {
    return ParameterValue::Categorical(
        spec.categorical_values[CategoryIndex(x[i], f.num_categories)]);
  }
  return algorithms::Decode(spec, std::clamp(x[i], 0.0, 1.0));
}

std::vector<bool> FeatureEncoding::ActiveParameters(
    std::span<const double> x) const {
  HPTUNE_CHECK(x.size() == features_.size(),
               "FeatureEncoding::ActiveParameters: one coordinate per feature "
               "expected");
  const auto n = parent_of_.size();
  std::vector<bool> active(n, true);
  if (!conditional_) return active;
  // Parents' values, decoded once each (parents come first: Create).
  std::vector<ParameterValue> values(n);
  for (size_t i = 0; i < n; ++i) {
    const int parent = parent_of_[i];
    if (parent >= 0) {
      active[i] = active[parent] &&
                  space_.parameters()[i].condition->Matches(values[parent]);
    }
    if (active[i] && is_parent_[i]) {
      values[i] = ValueAt(static_cast<int>(i), x);
    }
  }
  return active;
}

std::vector<bool> FeatureEncoding::ActiveFeatures(
    std::span<const double> x) const {
  std::vector<bool> features(features_.size(), true);
  if (!conditional_) return features;
  const std::vector<bool> parameters = ActiveParameters(x);
  for (size_t i = 0; i < features_.size(); ++i) {
    features[i] = parameters[features_[i].parameter];
  }
  return features;
}

absl::StatusOr<std::vector<double>> FeatureEncoding::Encode(
    const ParameterAssignment& assignment) const {
  std::vector<double> x(features_.size());
  const auto& parameters = space_.parameters();
  std::vector<bool> active(parameters.size(), true);
  // The value of each active parameter that is a parent.
  std::vector<const ParameterValue*> values(parameters.size(), nullptr);
  for (size_t p = 0; p < parameters.size(); ++p) {
    const ParameterSpec& spec = parameters[p];
    const int i = feature_of_[p];
    auto it = assignment.find(spec.name);
    const int parent = parent_of_[p];
    if (parent >= 0) {
      active[p] = active[parent] && spec.condition->Matches(*values[parent]);
    } else if (spec.first_trial > 0) {
      active[p] = it != assignment.end();  // Trials before it joined lack it.
    }
    if (!active[p]) {
      if (it != assignment.end()) {
        const ParameterValue* parent_value = values[parent];
        return absl::InvalidArgumentError(absl::StrCat(
            "parameter \"", spec.name, "\" is not active (its parent \"",
            spec.condition->parent, "\" ",
            parent_value == nullptr
                ? std::string("is not active")
                : absl::StrCat("is ", parent_value->ToString()),
            "), got ", it->second.ToString()));
      }
      if (i >= 0) x[i] = features_[i].imputed;
      continue;
    }
    if (i < 0) {
      // A single-valued parameter is not required: it has one value.
      values[p] = &constants_[p];
      continue;
    }
    if (it == assignment.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", spec.name, "\" has no value"));
    }
    values[p] = &it->second;
    HPTUNE_ASSIGN_OR_RETURN(double u, algorithms::Encode(spec, it->second));
    if (features_[i].kind == FeatureKind::kCategorical) {
      // Encode gives the centre (i + 1/2) / n of category i's interval.
      u = std::floor(u * features_[i].num_categories);
    }
    x[i] = u;
  }
  return x;
}

ParameterAssignment FeatureEncoding::Decode(std::span<const double> x) const {
  HPTUNE_CHECK(x.size() == features_.size(),
               "FeatureEncoding::Decode: one coordinate per feature expected");
  const std::vector<bool> active = ActiveParameters(x);
  ParameterAssignment assignment;
  for (size_t p = 0; p < active.size(); ++p) {
    if (!active[p]) continue;
    assignment.emplace(space_.parameters()[p].name,
                       ValueAt(static_cast<int>(p), x));
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
  // Activity from x as it is: snapping a parent keeps its decoded value.
  const std::vector<bool> active = ActiveFeatures(x);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] =
        active[i] ? SnapOne(static_cast<int>(i), x[i]) : features_[i].imputed;
  }
}

std::vector<double> FeatureEncoding::Neighbours(int i, double value) const {
  const Feature& f = features_.at(i);
  std::vector<double> neighbours;
  if (!f.discrete) return neighbours;
  if (f.kind == FeatureKind::kCategorical) {
    // The imputed index n is no category: all of them are neighbours.
    const int current =
        value >= f.num_categories ? -1 : CategoryIndex(value, f.num_categories);
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
