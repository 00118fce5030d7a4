// The empirical distribution function (EDF) of a study's objective, as the
// dashboard's EDF plot and its comparison of studies draw it. Pure;
// thread-safe.
//
// Formula, goal-aware so that the curve always reads "the fraction of trials
// that reached y or better": with the n finished values v_1..v_n,
//   MINIMIZE: F(y) = #{i : v_i <= y} / n
//   MAXIMIZE: F(y) = #{i : v_i >= y} / n
// (for MINIMIZE the classical empirical CDF; Optuna's plot_edf draws that
// CDF for either goal: optuna.visualization.plot_edf, Optuna 3.x).
#ifndef HPTUNE_SRC_DASHBOARD_EDF_H_
#define HPTUNE_SRC_DASHBOARD_EDF_H_

#include <cstddef>
#include <vector>

namespace hptune::dashboard {

struct EdfPoint {
  double value = 0;     // y, one of the study's values.
  double fraction = 0;  // F(y), exact.
};

struct Edf {
  size_t total = 0;     // n: the values given (the finite ones).
  size_t distinct = 0;  // How many distinct values (the steps of F).
  // F at distinct values, increasing in `value`; at most max_points of them
  // (an even spread by rank, the smallest and largest kept), each exact.
  std::vector<EdfPoint> points;
};

// The EDF of `values` (values that are not finite are left out), at most
// `max_points` (>= 2) points.
Edf EmpiricalDistribution(std::vector<double> values, bool maximize,
                          size_t max_points);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_EDF_H_
