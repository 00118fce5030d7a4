// LearningCurve: one trial's values of the study's metric by training step,
// the input every early-stopping rule reads. The engine keeps curves between
// checks and extends them with new reports (CurveStoppingPolicy in
// stopping_policy.h), so a check does not rebuild a long curve.
//
// Built from a Trial's intermediate measurements (not its final one: a final
// measurement may be a separate evaluation with no place on the curve).
// Measurements lacking the metric, or with a non-finite value, are left out
// (a non-finite one marks the curve diverged()).
// A curve is its trial's current attempt's: a measurement of a later attempt
// (Measurement::attempt) starts it again, so a re-run is judged on its own
// reports, not on the dead attempt's.
// Points keep report order; steps need not increase (a restarted trainer may
// report a step again). Value type; thread-compatible.
#ifndef HPTUNE_ALGORITHMS_LEARNING_CURVE_H_
#define HPTUNE_ALGORITHMS_LEARNING_CURVE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hptune/core/study.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

class LearningCurve {
 public:
  struct Point {
    int64_t step = 0;
    double value = 0;
    Timestamp time{};
  };

  // An empty curve of trial `trial`.
  explicit LearningCurve(int64_t trial) : trial_(trial) {}
  LearningCurve(const Trial& trial, const std::string& metric);

  // Appends `reported`, in order, as the constructor would have read them
  // after the measurements already in the curve.
  void Extend(std::span<const Measurement> reported, const std::string& metric);

  int64_t trial() const { return trial_; }
  const std::vector<Point>& points() const { return points_; }
  bool empty() const { return points_.empty(); }
  // Whether the current attempt reported a non-finite value of the metric
  // (NaN or infinity: a diverged training). Its points leave it out.
  bool diverged() const { return diverged_; }
  // The largest step reported; 0 for an empty curve.
  int64_t max_step() const { return max_step_; }

  // The best value for `goal` over the whole curve; constant time.
  std::optional<double> Best(Goal goal) const;
  // Mean of the values at steps <= `step`: Vizier's running average
  // (Golovin et al., KDD 2017, section 3.2.2). nullopt when no point is
  // that early.
  std::optional<double> MeanUpTo(int64_t step) const;
  // The value at the largest step <= `step` (the later report on a tie);
  // nullopt when no point is that early.
  std::optional<double> ValueAtOrBefore(int64_t step) const;
  // When the curve first reached `step`: the time of the first point, in
  // report order, whose step is >= `step`. nullopt when it never did.
  std::optional<Timestamp> ReachedAt(int64_t step) const;

 private:
  int64_t trial_;
  std::vector<Point> points_;
  int64_t max_step_ = 0;
  int attempt_ = 0;  // Of the points.
  bool diverged_ = false;
  double min_value_ = 0;  // Meaningful when points_ is not empty.
  double max_value_ = 0;
};

// The median of `values` (the mean of the two middle ones for an even
// count). `values` must not be empty.
double Median(std::vector<double> values);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_LEARNING_CURVE_H_
