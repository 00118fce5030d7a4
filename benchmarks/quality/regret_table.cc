#include "benchmarks/quality/regret_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hptune::quality {
namespace {

// Pads each column to its widest cell: the first `text_columns` columns
// left-aligned, the others right-aligned.
std::string AlignColumns(const std::vector<std::vector<std::string>>& lines,
                         size_t text_columns) {
  std::vector<size_t> widths;
  for (const auto& line : lines) {
    widths.resize(std::max(widths.size(), line.size()), 0);
    for (size_t i = 0; i < line.size(); ++i) {
      widths[i] = std::max(widths[i], line[i].size());
    }
  }
  std::string out;
  for (const auto& line : lines) {
    std::string text;
    for (size_t i = 0; i < line.size(); ++i) {
      if (i > 0) text += "  ";
      const std::string pad(widths[i] - line[i].size(), ' ');
      text += i < text_columns ? line[i] + pad : pad + line[i];
    }
    text.erase(text.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, text, "\n");
  }
  return out;
}

}  // namespace

double Median(std::vector<double> values) {
  if (values.empty()) {
    std::fprintf(stderr, "quality: broken invariant: median of nothing\n");
    std::abort();
  }
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void SummarizeRegrets(std::vector<double> regrets, RegretRow& row) {
  row.median = Median(regrets);  // Aborts when empty.
  const auto [min, max] = std::minmax_element(regrets.begin(), regrets.end());
  row.min = *min;
  row.max = *max;
  row.seeds = static_cast<int>(regrets.size());
}

std::string FormatCsv(const std::vector<RegretRow>& rows) {
  std::string out =
      "library,designer,function,mode,budget,seeds,median_regret,min_regret,"
      "max_regret\n";
  for (const RegretRow& r : rows) {
    absl::StrAppend(
        &out, absl::StrFormat("%s,%s,%s,%s,%d,%d,%.6g,%.6g,%.6g\n", r.library,
                              r.designer, r.function, r.mode, r.budget, r.seeds,
                              r.median, r.min, r.max));
  }
  return out;
}

std::string FormatRunsCsv(const std::vector<RunRegret>& runs) {
  std::string out = "library,designer,function,mode,budget,seed,regret\n";
  for (const RunRegret& r : runs) {
    absl::StrAppend(
        &out, absl::StrFormat("hptune,%s,%s,%s,%d,%d,%.17g\n", r.designer,
                              r.function, r.mode, r.budget, r.seed, r.regret));
  }
  return out;
}

std::string FormatTable(const std::vector<RegretRow>& rows) {
  // (function, budget, mode).
  using Key = std::tuple<std::string, int, std::string>;
  std::vector<Key> keys;
  std::vector<std::string> designers;
  std::map<std::pair<Key, std::string>, const RegretRow*> cells;
  for (const RegretRow& r : rows) {
    Key key{r.function, r.budget, r.mode};
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      keys.push_back(key);
    }
    if (std::find(designers.begin(), designers.end(), r.designer) ==
        designers.end()) {
      designers.push_back(r.designer);
    }
    cells[{key, r.designer}] = &r;
  }
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> header = {"function", "budget", "mode"};
  for (const std::string& d : designers) header.push_back(d);
  lines.push_back(header);
  for (const Key& key : keys) {
    std::vector<std::string> line = {
        std::get<0>(key), absl::StrCat(std::get<1>(key)), std::get<2>(key)};
    for (const std::string& d : designers) {
      auto it = cells.find({key, d});
      line.push_back(it == cells.end()
                         ? "-"
                         : absl::StrFormat("%.3g [%.3g, %.3g]",
                                           it->second->median, it->second->min,
                                           it->second->max));
    }
    lines.push_back(std::move(line));
  }
  return AlignColumns(lines, /*text_columns=*/3);
}

}  // namespace hptune::quality
