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
// Feature vectors that the acquisition optimiser produces are relaxed:
// INTEGER and DISCRETE coordinates anywhere in [0, 1], categorical indices
// not yet rounded. Snap moves such a vector onto the image of the feasible
// point it decodes to, so that Encode(Decode(x)) == Snap(x) and two vectors
// that decode to the same point snap to the same vector. Immutable after
// Create; thread-safe.
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
  // Number of categories (CATEGORICAL only, >= 2).
  int num_categories = 0;
};

class FeatureEncoding {
 public:
  // InvalidArgument when `space` fails ValidateForEncoding.
  static absl::StatusOr<FeatureEncoding> Create(const SearchSpace& space);

  const SearchSpace& space() const { return space_; }
  const std::vector<Feature>& features() const { return features_; }
  int dimension() const { return static_cast<int>(features_.size()); }
  std::vector<FeatureKind> kinds() const;

  // The features of a feasible assignment. InvalidArgument naming the
  // parameter when one is missing or not feasible.
  absl::StatusOr<std::vector<double>> Encode(
      const ParameterAssignment& assignment) const;

  // The feasible assignment nearest to `x` (dimension() coordinates; aborts
  // otherwise): each continuous coordinate clamped to [0, 1] and decoded
  // with unit_cube.h's Decode, each categorical index rounded and clamped.
  ParameterAssignment Decode(std::span<const double> x) const;

  // In place: x becomes Encode(Decode(x)), except that a DOUBLE coordinate is
  // only clamped to [0, 1] (its decoded value encodes back to it up to
  // rounding).
  void Snap(std::span<double> x) const;

  // The snapped values of feature `f` next to the snapped value `value`: the
  // neighbouring integers or discrete values (one or two), or every other
  // category. Empty for a DOUBLE feature.
  std::vector<double> Neighbours(int f, double value) const;

 private:
  FeatureEncoding(SearchSpace space, std::vector<Feature> features,
                  ParameterAssignment constants)
      : space_(std::move(space)),
        features_(std::move(features)),
        constants_(std::move(constants)) {}

  double SnapOne(int f, double value) const;

  SearchSpace space_;
  std::vector<Feature> features_;
  ParameterAssignment constants_;  // The single-valued parameters.
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_ENCODING_GP_FEATURES_H_
