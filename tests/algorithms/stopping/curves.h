// Builders of studies and trials with learning curves for the
// early-stopping tests.
#ifndef HPTUNE_TESTS_ALGORITHMS_STOPPING_CURVES_H_
#define HPTUNE_TESTS_ALGORITHMS_STOPPING_CURVES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hptune/core/study.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms::testing {

inline constexpr char kMetric[] = "accuracy";

inline StudySpec Study(Goal goal = Goal::kMaximize) {
  StudySpec spec;
  spec.SetSingleMetric(kMetric, goal);
  return spec;
}

struct Point {
  int64_t step = 0;
  double value = 0;
  int64_t seconds = 0;  // Report time; 0 leaves it unset.
};

// Trial `number` in `state` whose intermediate measurements report
// `kMetric` at the given points, in order.
inline Trial CurveTrial(int64_t number, TrialState state,
                        const std::vector<Point>& points) {
  Trial trial;
  trial.number = number;
  trial.state = state;
  for (const Point& p : points) {
    Measurement m;
    m.step = p.step;
    m.time = FromUnixMicros(p.seconds * 1'000'000);
    m.metrics[kMetric] = p.value;
    trial.measurements.push_back(m);
  }
  return trial;
}

// `value` at every step of `steps`.
inline std::vector<Point> Flat(double value,
                               const std::vector<int64_t>& steps) {
  std::vector<Point> points;
  for (int64_t step : steps) points.push_back({step, value});
  return points;
}

// 100, 200, ..., last.
inline std::vector<int64_t> Hundreds(int64_t last) {
  std::vector<int64_t> steps;
  for (int64_t s = 100; s <= last; s += 100) steps.push_back(s);
  return steps;
}

}  // namespace hptune::algorithms::testing

#endif  // HPTUNE_TESTS_ALGORITHMS_STOPPING_CURVES_H_
