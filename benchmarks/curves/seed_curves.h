// The learning-curve benchmark's seed-averaged tables
// (benchmarks/curves/data/<task>.seeds.csv.gz, made by
// generate_seed_curves.py): every configuration of a CurveTable trained
// with K seeds, seed 0 its table's own training. A replay that reads them
// gives each trial one seed's curve, drawn per trial, and scores regret on
// the configuration's mean final value over its seeds, so a lucky training
// earns nothing (docs/designers.md, "The learning-curve benchmark").
//
// Used by curve_replay --seeded, the replay (replay.h) and their tests.
// An immutable value once loaded: thread-compatible.
#ifndef HPTUNE_BENCHMARKS_CURVES_SEED_CURVES_H_
#define HPTUNE_BENCHMARKS_CURVES_SEED_CURVES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmarks/curves/curve_table.h"

namespace hptune::curves {

struct SeedCurves {
  int seeds = 0;  // K, the same for every configuration.
  // metric[i][k][s], cost[i][k][s]: configuration i, seed k, after step s.
  std::vector<std::vector<std::vector<double>>> metric;
  std::vector<std::vector<std::vector<double>>> cost;

  // Configuration i's final value averaged over its seeds: its expected
  // result.
  double MeanFinal(int config) const;
  // The lowest MeanFinal of all configurations: the reference of regret.
  // A tuner whose best trial trained configuration i is charged
  // MeanFinal(i) - BestMeanFinal(), whatever seed that trial drew.
  double BestMeanFinal() const;
};

// Reads <dir>/<task>.seeds.csv.gz (a plain .seeds.csv where only it
// exists): rows id, seed, `table.steps` metrics, as many costs, for every
// configuration of `table` and seeds 0..K-1 (rows of configurations past
// table's, as after KeepFirstConfigurations, are skipped). Every error
// names the file, and the line where there is one.
absl::StatusOr<SeedCurves> LoadSeedCurves(const std::string& dir,
                                          const CurveTable& table);

}  // namespace hptune::curves

#endif  // HPTUNE_BENCHMARKS_CURVES_SEED_CURVES_H_
