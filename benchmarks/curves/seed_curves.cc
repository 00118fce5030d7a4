#include "benchmarks/curves/seed_curves.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hptune::curves {
namespace {

constexpr int kMaxSeeds = 1000;

// One row: id, seed, then the metrics and costs of table.steps steps, into
// `curves` (a row past the table's configurations is skipped).
absl::Status ParseSeedRow(const std::vector<std::string>& cells,
                          const CurveTable& table, SeedCurves& curves) {
  const size_t want = 2 + 2 * static_cast<size_t>(table.steps);
  if (cells.size() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat(cells.size(), " columns, expected ", want));
  }
  int id = 0, seed = 0;
  if (!absl::SimpleAtoi(cells[0], &id) || !absl::SimpleAtoi(cells[1], &seed) ||
      id < 0 || seed < 0 || seed >= kMaxSeeds) {
    return absl::InvalidArgumentError("id or seed: not a valid index");
  }
  if (static_cast<size_t>(id) >= table.configs.size()) return absl::OkStatus();
  std::vector<double> metric(table.steps), cost(table.steps);
  for (int s = 0; s < 2 * table.steps; ++s) {
    double v = 0;
    if (!absl::SimpleAtod(cells[2 + s], &v) || !std::isfinite(v)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "column ", 3 + s, ": not a finite number: \"", cells[2 + s], "\""));
    }
    (s < table.steps ? metric[s] : cost[s - table.steps]) = v;
  }
  auto& m = curves.metric[id];
  auto& c = curves.cost[id];
  if (m.size() <= static_cast<size_t>(seed)) {
    m.resize(seed + 1);
    c.resize(seed + 1);
  }
  m[seed] = std::move(metric);
  c[seed] = std::move(cost);
  return absl::OkStatus();
}

// Every configuration has seeds 0..K-1, the same K for all.
absl::Status CheckComplete(const std::string& path, SeedCurves& curves) {
  curves.seeds = static_cast<int>(curves.metric.front().size());
  for (size_t i = 0; i < curves.metric.size(); ++i) {
    bool complete = static_cast<int>(curves.metric[i].size()) == curves.seeds;
    for (const auto& curve : curves.metric[i]) complete &= !curve.empty();
    if (!complete || curves.seeds == 0) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": configuration ",
                                                     i, " lacks seeds of 0..",
                                                     curves.seeds - 1));
    }
  }
  return absl::OkStatus();
}

}  // namespace

double SeedCurves::MeanFinal(int config) const {
  double sum = 0;
  for (const auto& curve : metric[config]) sum += curve.back();
  return sum / static_cast<double>(metric[config].size());
}

double SeedCurves::BestMeanFinal() const {
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < metric.size(); ++i) {
    best = std::min(best, MeanFinal(static_cast<int>(i)));
  }
  return best;
}

absl::StatusOr<SeedCurves> LoadSeedCurves(const std::string& dir,
                                          const CurveTable& table) {
  const std::string base = absl::StrCat(dir, "/", table.task, ".seeds.csv");
  const bool plain =
      !std::filesystem::exists(base + ".gz") && std::filesystem::exists(base);
  const std::string path = plain ? base : base + ".gz";
  auto text = ReadTableText(path);
  if (!text.ok()) return text.status();
  SeedCurves curves;
  curves.metric.resize(table.configs.size());
  curves.cost.resize(table.configs.size());
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    ++line_number;
    if (line_number == 1 || line.empty()) continue;  // The header.
    const std::vector<std::string> cells = absl::StrSplit(line, ',');
    if (auto s = ParseSeedRow(cells, table, curves); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", s.message()));
    }
  }
  if (auto s = CheckComplete(path, curves); !s.ok()) return s;
  return curves;
}

}  // namespace hptune::curves
