// GP feature encoding: a search space's points as the input features of the
// Gaussian-process designer, and back.
//
// Every parameter with more than one feasible value is one feature; a
// parameter with a single value carries no information, is left out, and
// Decode puts its value back. Per parameter type:
//   DOUBLE, INTEGER, DISCRETE  a continuous feature: the unit-cube coordinate
//                              u in [0, 1] of unit_cube.h (scale types,
//                              integer intervals and discrete images as
//                              documented there).
//   CATEGORICAL                a categorical feature: the index 0..n-1 of the
//                              value, as a double. The kernel compares it by
//                              equality only (gp/matern_kernel.h), never as
//                              an ordered number.
// Conditional spaces (search_space.h): a parameter is active when its parent
// is active and takes an activating value, so activity is a function of the
// ancestors' values. Inactive parameters are imputed with a constant, after
// Levesque, Durand, Gagne & Sabourin, "Bayesian optimization for conditional
// hyperparameter spaces", IJCNN 2017:
//   x_i = u_i  when parameter i is active,
//   x_i = c_i  when it is not;  c_i = 0.5 (continuous: the cube's centre),
//                               c_i = n   (categorical: an extra category).
// A root parameter that joined the space later (ParameterSpec::first_trial)
// is inactive in a trial that lacks it, and imputed the same way; Decode
// always gives it a value.
// Two points both inactive in i are at distance zero there, as in the
// arc kernel of Swersky, Duvenaud, Snoek, Hutter & Osborne, "Raiders of the
// lost architecture: Kernels for Bayesian optimization in conditional
// parameter spaces" (NeurIPS BayesOpt workshop, 2014); two points whose
// activity of i differs also differ in an ancestor of i, whose term keeps
// them apart. The map to x is an embedding in the space the kernel already
// works in (the extra category is one more one-hot vector), so the kernel
// stays positive definite with no change (gp/matern_kernel.h).
// Feature vectors that the acquisition optimiser produces are relaxed:
// INTEGER and DISCRETE coordinates anywhere in [0, 1], categorical indices
// not yet rounded, inactive coordinates anything. Snap moves such a vector
// onto the image of the feasible point it decodes to, so that
// Encode(Decode(x)) == Snap(x) and two vectors that decode to the same point
// snap to the same vector. Immutable after Create; thread-safe.
#ifndef HPTUNE_ALGORITHMS_ENCODING_GP_FEATURES_H_
#define HPTUNE_ALGORITHMS_ENCODING_GP_FEATURES_H_

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/search_space.h"

namespace hptune::algorithms {

enum class FeatureKind { kContinuous, kCategorical };

struct Feature {
  int parameter = 0;  // Index into SearchSpace::parameters().
  FeatureKind kind = FeatureKind::kContinuous;
  // Whether only some coordinates are feasible (INTEGER, DISCRETE,
  // CATEGORICAL), so that relaxed values need Snap.
  bool discrete = false;
  // Number of categories (CATEGORICAL only, >= 2). The kernel compares
  // indices by equality, so the imputed index n needs no extra count.
  int num_categories = 0;
  // Whether the parameter has a parent (may be inactive).
  bool conditional = false;
  // Whether some parameter has this one as its parent: its value decides
  // which features are active.
  bool parent = false;
  // The coordinate of an inactive feature: 0.5, or num_categories.
  double imputed = 0.5;
};

class FeatureEncoding {
 public:
  // InvalidArgument when `space` fails ValidateForEncoding.
  static absl::StatusOr<FeatureEncoding> Create(const SearchSpace& space);

  const SearchSpace& space() const { return space_; }
  const std::vector<Feature>& features() const { return features_; }
  int dimension() const { return static_cast<int>(features_.size()); }
  std::vector<FeatureKind> kinds() const;

  // Whether any feature can be inactive.
  bool conditional() const { return conditional_; }

  // The features of a feasible assignment, inactive ones imputed.
  // InvalidArgument naming the parameter when an active one is missing or
  // not feasible, or an inactive one has a value.
  absl::StatusOr<std::vector<double>> Encode(
      const ParameterAssignment& assignment) const;

  // The feasible assignment nearest to `x` (dimension() coordinates; aborts
  // otherwise), active parameters only: each continuous coordinate clamped
  // to [0, 1] and decoded with unit_cube.h's Decode, each categorical index
  // rounded and clamped, parents before their children.
  ParameterAssignment Decode(std::span<const double> x) const;

  // Which parameters Decode(x) has, one flag per parameter of the space.
  std::vector<bool> ActiveParameters(std::span<const double> x) const;
  // The same per feature.
  std::vector<bool> ActiveFeatures(std::span<const double> x) const;

  // In place: x becomes Encode(Decode(x)), except that a DOUBLE coordinate is
  // only clamped to [0, 1] (its decoded value encodes back to it up to
  // rounding). Inactive coordinates become their imputed values.
  void Snap(std::span<double> x) const;

  // The snapped values of feature `f` next to the snapped value `value`: the
  // neighbouring integers or discrete values (one or two), or every other
  // category (every category for the imputed index). Empty for a DOUBLE
  // feature.
  std::vector<double> Neighbours(int f, double value) const;

 private:
  FeatureEncoding(SearchSpace space, std::vector<Feature> features,
                  std::vector<int> feature_of,
                  std::vector<ParameterValue> constants);

  double SnapOne(int f, double value) const;
  // Parameter p's value at x: its constant or its feature decoded.
  ParameterValue ValueAt(int p, std::span<const double> x) const;

  SearchSpace space_;
  std::vector<Feature> features_;
  // Per parameter: its feature, or -1 for a single-valued one.
  std::vector<int> feature_of_;
  // Per parameter: the value of a single-valued one (unused otherwise).
  std::vector<ParameterValue> constants_;
  // Per parameter: its parent's index, or -1; and whether it is a parent.
  std::vector<int> parent_of_;
  std::vector<bool> is_parent_;
  bool conditional_ = false;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_ENCODING_GP_FEATURES_H_
