// Unit-cube encoding: maps each parameter's value to [0, 1] and back.
//
// Every designer that works with numbers rather than parameter values uses
// this: random and quasi-random search draw points of [0, 1)^d and decode
// them; the Gaussian-process designer models the objective on the encoded
// cube. Pure functions of the parameter spec; thread-safe.
//
// Per scale type, for a continuous range [lo, hi] (ScaleType::kNone is treated
// as linear, as AI Platform does):
//   linear        u = (x - lo) / (hi - lo)
//   log           u = (ln x - ln lo) / (ln hi - ln lo)
//   reverse log   x = hi + lo - exp(ln lo + (1 - u) (ln hi - ln lo)),
//                 i.e. u = 1 - (ln(hi + lo - x) - ln lo) / (ln hi - ln lo).
// Reverse log is the mirror image of log about the middle of the range, so
// points are denser near hi (Google Cloud AI Platform's
// UNIT_REVERSE_LOG_SCALE; Golovin et al., "Google Vizier: A Service for
// Black-Box Optimization", KDD 2017, section 2; the same formula as
// KerasTuner's "reverse_log" sampling).
//
// Per parameter type:
//   DOUBLE       [lo, hi] = [min, max] under its scale.
//   INTEGER      integer k owns the real interval [k - 1/2, k + 1/2), so the
//                parameter is a continuous one over [min - 1/2, max + 1/2]
//                under its scale, and Decode rounds to the nearest integer.
//                Under a linear scale every integer owns an interval of the
//                cube of the same width 1 / (max - min + 1), so a uniform u
//                makes each integer equally likely (the ends are not halved,
//                as they would be by rounding over [min, max]). Under a log
//                scale the widths follow the log of the interval, i.e. a
//                log-uniform prior over integers. Encode(k) is the image of k
//                itself, inside k's interval.
//   DISCRETE     the continuous range [first value, last value] under its
//                scale; Encode(v) is v's image and Decode(u) is the value
//                whose image is nearest to u (nearest in the scaled space).
//   CATEGORICAL  by index: value i of n owns [i / n, (i + 1) / n); Encode(i)
//                is the centre (i + 1/2) / n.
//
// Decode is the geometric inverse (the GP designer's view). The prior that
// random and quasi-random search sample with is ValueFromUniform: the same as
// Decode except that DISCRETE values are chosen by index, each with
// probability 1 / n, as users expect from random search over a list.
#ifndef HPTUNE_ALGORITHMS_ENCODING_UNIT_CUBE_H_
#define HPTUNE_ALGORITHMS_ENCODING_UNIT_CUBE_H_

#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/search_space.h"

namespace hptune::algorithms {

// OK when every parameter of `space` can be encoded: unique names; a
// conditional parameter's parent comes before it and is not DOUBLE; DOUBLE
// needs finite min < max; INTEGER needs integral min <= max within +-2^53
// (so every integer in range is an exact double); DISCRETE needs finite,
// strictly increasing values, at least one; CATEGORICAL at least one value,
// no repeats; log scales need a strictly positive range. The functions below
// require a space (or spec) that passed this check.
[[nodiscard]] absl::Status ValidateForEncoding(const SearchSpace& space);

// The image of `value` in [0, 1]. InvalidArgument (naming the parameter and
// the value) when the value is of the wrong kind or not feasible.
absl::StatusOr<double> Encode(const ParameterSpec& spec,
                              const ParameterValue& value);

// The feasible value nearest to `u` (clamped to [0, 1]; NaN reads as 0).
// Monotone non-decreasing in u for numeric types; Decode(0) is the smallest
// and Decode(1) the largest value; Decode(Encode(x)) == x for feasible x up
// to rounding (exactly for INTEGER, DISCRETE and CATEGORICAL).
ParameterValue Decode(const ParameterSpec& spec, double u);

// The value a uniform draw u in [0, 1) selects under the search prior (see
// the header comment): Decode(spec, u), except DISCRETE by index.
ParameterValue ValueFromUniform(const ParameterSpec& spec, double u);

// Whole assignments, coordinates in the order of space.parameters(). In a
// conditional space a parameter's coordinate is used only when the values
// before it activate it (parents come first), so the assignments hold
// exactly the active parameters and a tree is sampled branch by branch.
// EncodeAssignment: InvalidArgument when an active parameter is missing, an
// inactive one is given, or a value is not feasible; an inactive parameter's
// coordinate is NaN (also one that joined later and is missing:
// ParameterSpec::first_trial); parameters not in the space are ignored.
absl::StatusOr<std::vector<double>> EncodeAssignment(
    const SearchSpace& space, const ParameterAssignment& assignment);
// `u` must have one coordinate per parameter (aborts otherwise: a caller
// bug).
ParameterAssignment DecodeAssignment(const SearchSpace& space,
                                     std::span<const double> u);
ParameterAssignment AssignmentFromUniform(const SearchSpace& space,
                                          std::span<const double> u);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_ENCODING_UNIT_CUBE_H_
