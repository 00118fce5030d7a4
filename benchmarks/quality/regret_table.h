// Summaries of simple regret over seeds, printed as CSV or as a table, and
// the per-run regrets behind them (for paired comparisons of two builds,
// benchmarks/quality/paired_compare.py).
//
// Used by quality_harness. The CSV columns are shared with
// benchmarks/optuna_compare.py, and benchmarks/quality/merge_tables.py reads
// both: change them together. Pure functions; thread-safe.
#ifndef HPTUNE_BENCHMARKS_QUALITY_REGRET_TABLE_H_
#define HPTUNE_BENCHMARKS_QUALITY_REGRET_TABLE_H_

#include <string>
#include <vector>

namespace hptune::quality {

// One cell: a designer on a function at a budget in a worker mode.
struct RegretRow {
  std::string library = "hptune";  // "hptune" or "optuna".
  std::string designer;
  std::string function;
  std::string mode;  // "sequential", "parallel4", ...
  int budget = 0;
  int seeds = 0;  // How many runs the statistics are over.
  double median = 0;
  double min = 0;
  double max = 0;
};

// One run: a designer on a function with one seed, cut at a budget.
struct RunRegret {
  std::string designer;
  std::string function;
  std::string mode;
  int budget = 0;
  int seed = 0;
  double regret = 0;
};

// The median of `values` (not empty; aborts otherwise), the mean of the
// middle two for an even count.
double Median(std::vector<double> values);

// Median (the mean of the middle two for an even count), min and max of
// `regrets` (not empty; aborts otherwise) into `row`, with seeds = its size.
void SummarizeRegrets(std::vector<double> regrets, RegretRow& row);

// Header "library,designer,function,mode,budget,seeds,median_regret,
// min_regret,max_regret", then one line per row; values with 6 significant
// digits.
std::string FormatCsv(const std::vector<RegretRow>& rows);

// Header "library,designer,function,mode,budget,seed,regret", then one line
// per run (library "hptune"); regret with 17 significant digits, so that
// per-seed comparisons see every digit the harness computed.
std::string FormatRunsCsv(const std::vector<RunRegret>& runs);

// One line per (function, budget, mode), in the order they first appear; one
// column per designer, in the order they first appear, each cell
// "median [min, max]" with 3 significant digits ("-" where a cell is
// missing).
std::string FormatTable(const std::vector<RegretRow>& rows);

}  // namespace hptune::quality

#endif  // HPTUNE_BENCHMARKS_QUALITY_REGRET_TABLE_H_
