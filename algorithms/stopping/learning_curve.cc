#include "hptune/algorithms/learning_curve.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "hptune/core/check.h"

namespace hptune::algorithms {

LearningCurve::LearningCurve(const Trial& trial, const std::string& metric)
    : trial_(trial.number) {
  points_.reserve(trial.measurements.size());
  Extend(trial.measurements, metric);
}

void LearningCurve::Extend(std::span<const Measurement> reported,
                           const std::string& metric) {
  for (const Measurement& m : reported) {
    if (m.attempt > attempt_) {  // A re-run: its curve starts again.
      attempt_ = m.attempt;
      points_.clear();
      max_step_ = 0;
      diverged_ = false;
    }
    std::optional<double> value = m.Get(metric);
    if (!value) continue;
    if (!std::isfinite(*value)) {
      diverged_ = true;
      continue;
    }
    if (points_.empty()) {
      min_value_ = max_value_ = *value;
    } else {
      min_value_ = std::min(min_value_, *value);
      max_value_ = std::max(max_value_, *value);
    }
    points_.push_back({.step = m.step, .value = *value, .time = m.time});
    max_step_ = std::max(max_step_, m.step);
  }
}

std::optional<double> LearningCurve::Best(Goal goal) const {
  if (points_.empty()) return std::nullopt;
  return goal == Goal::kMaximize ? max_value_ : min_value_;
}

std::optional<double> LearningCurve::MeanUpTo(int64_t step) const {
  double sum = 0;
  int count = 0;
  for (const Point& p : points_) {
    if (p.step > step) continue;
    sum += p.value;
    ++count;
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

std::optional<double> LearningCurve::ValueAtOrBefore(int64_t step) const {
  const Point* found = nullptr;
  for (const Point& p : points_) {
    if (p.step <= step && (found == nullptr || p.step >= found->step)) {
      found = &p;
    }
  }
  if (found == nullptr) return std::nullopt;
  return found->value;
}

std::optional<Timestamp> LearningCurve::ReachedAt(int64_t step) const {
  for (const Point& p : points_) {
    if (p.step >= step) return p.time;
  }
  return std::nullopt;
}

double Median(std::vector<double> values) {
  HPTUNE_CHECK(!values.empty(), "Median of no values");
  size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  double lower = *std::max_element(values.begin(), values.begin() + middle);
  return (lower + upper) / 2;
}

}  // namespace hptune::algorithms
