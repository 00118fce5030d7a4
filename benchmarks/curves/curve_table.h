// The learning-curve benchmark's tables (benchmarks/curves/data/<task>.csv.gz
// and <task>.manifest.json, made by generate_curves.py): per tabulated
// configuration, the held-out metric (lower is better) and the CPU seconds
// of each training step; and the map from any point of the task's search
// space to the nearest tabulated configuration.
//
// Used by curve_replay (the replay of hptune's engine on these curves) and
// its tests; optuna_curves.py has the same reader and map in Python.
// A CurveTable is an immutable value: thread-compatible.
#ifndef HPTUNE_BENCHMARKS_CURVES_CURVE_TABLE_H_
#define HPTUNE_BENCHMARKS_CURVES_CURVE_TABLE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/search_space.h"

namespace hptune::curves {

struct CurveTable {
  std::string task;
  std::string metric_name;  // The manifest's "metric".
  int steps = 0;
  // The parameters as hptune declares them (DOUBLE and INTEGER with their
  // bounds and scale, CATEGORICAL with its values).
  SearchSpace space;
  std::vector<ParameterAssignment> configs;
  // metric[i][s], cost[i][s]: configuration i after step s (0-based).
  std::vector<std::vector<double>> metric;
  std::vector<std::vector<double>> cost;

  // The lowest metric of the table, over every configuration and step: the
  // reference of regret, so that a regret is never negative.
  double BestValue() const;
};

// Reads <dir>/<task>.manifest.json and <dir>/<task>.csv.gz (gzip; a plain
// <task>.csv where only it exists). Every error names the file, and the
// line and column where there is one.
absl::StatusOr<CurveTable> LoadCurveTable(const std::string& dir,
                                          const std::string& task);

// A table file's text: gunzipped when `path` ends in ".gz". NotFound when
// it cannot be opened; other errors name the file.
absl::StatusOr<std::string> ReadTableText(const std::string& path);

// Keeps the table's first n configurations: a table's configurations are a
// Sobol sequence's first points, so its first n are the table of n that
// generate_curves.py makes with the same seed. InvalidArgument when n is
// not in [1, the table's configurations].
absl::Status KeepFirstConfigurations(int n, CurveTable& table);

// The index of the configuration nearest to `point`: the smallest sum over
// the parameters of the squared difference of their unit-cube coordinates
// (unit_cube.h: log-scaled parameters by log), where a CATEGORICAL parameter
// adds 0 when it matches and 1 when not; ties go to the lower index.
// InvalidArgument, naming the parameter, when `point` lacks one or has a
// value its space refuses.
absl::StatusOr<int> NearestConfiguration(const CurveTable& table,
                                         const ParameterAssignment& point);

}  // namespace hptune::curves

#endif  // HPTUNE_BENCHMARKS_CURVES_CURVE_TABLE_H_
