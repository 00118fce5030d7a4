#include "src/cli/importance_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace hptune::cli {
namespace {

constexpr int kBarWidth = 40;  // characters for an importance of 1

// The shortest text that reads back to v: CSV and JSON keep every digit.
std::string EveryDigit(double v) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return std::string(buffer, result.ptr);
}

// 4 significant digits, then the bar, which starts in the same column on
// every row.
std::string ForTable(double importance) {
  const auto bar_length =
      static_cast<size_t>(std::lround(importance * kBarWidth));
  std::string text = absl::StrFormat("%.4g", importance);
  if (bar_length == 0) return text;
  text.resize(std::max<size_t>(text.size() + 1, 10), ' ');
  return text + std::string(bar_length, '#');
}

void PrintJson(const std::string& study,
               const algorithms::ImportanceReport& report, std::ostream& out) {
  nlohmann::ordered_json importances = nlohmann::ordered_json::array();
  for (const auto& entry : report.importances) {
    nlohmann::ordered_json item = {{"parameter", entry.parameter},
                                   {"importance", entry.importance},
                                   {"lower", entry.lower},
                                   {"upper", entry.upper}};
    // A conditional parameter is judged over the trials where it is active.
    if (entry.active_trials < report.trials) {
      item["activeTrials"] = entry.active_trials;
    }
    importances.push_back(std::move(item));
  }
  nlohmann::ordered_json document = {
      {"study", study},
      {"method", "PED-ANOVA"},
      {"trials", report.trials},
      {"topTrials", report.top_trials},
      {"trialsNeeded", report.trials_needed},
      {"bootstrapResamples", report.bootstrap_resamples},
      {"note", report.note},
      {"importances", std::move(importances)}};
  out << document.dump(2) << "\n";
}

// What the table rests on: the too-few note, the top set, the intervals
// and the conditional parameters.
void PrintFooter(const algorithms::ImportanceReport& report,
                 const algorithms::ImportanceOptions& options,
                 std::ostream& out) {
  out << "\n";
  if (!report.note.empty()) out << report.note << "\n";
  if (report.trials < 2) {
    out << "Every importance is 0.\n";
    return;
  }
  out << "PED-ANOVA: how much each parameter decides whether a trial is "
         "among the best "
      << report.top_trials << " of " << report.trials
      << " finished trials (the best "
      << absl::StrFormat("%g", options.top_quantile * 100) << "%, at least "
      << options.min_top_trials << " and at most half)\n";
  if (report.bootstrap_resamples > 0) {
    out << "interval: 5th to 95th percentile over "
        << report.bootstrap_resamples << " bootstrap resamples of the trials\n";
  }
  std::string conditional;
  for (const auto& entry : report.importances) {
    if (entry.active_trials >= report.trials) continue;
    absl::StrAppend(&conditional, conditional.empty() ? "" : ", ",
                    entry.parameter, " (", entry.active_trials, ")");
  }
  if (!conditional.empty()) {
    out << "conditional parameters, judged over the trials where they are "
           "active: "
        << conditional << "\n";
  }
}

}  // namespace

void PrintImportance(const std::string& study,
                     const algorithms::ImportanceReport& report,
                     const algorithms::ImportanceOptions& options,
                     OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    PrintJson(study, report, out);
    return;
  }
  const bool csv = format == OutputFormat::kCsv;
  Table table{.header = {"parameter", "importance"}, .rows = {}};
  if (csv) {
    table.header.insert(table.header.end(), {"lower", "upper"});
  } else {
    table.header.push_back("90% interval");
  }
  for (const auto& entry : report.importances) {
    if (csv) {
      table.rows.push_back({entry.parameter, EveryDigit(entry.importance),
                            EveryDigit(entry.lower), EveryDigit(entry.upper)});
    } else {
      table.rows.push_back(
          {entry.parameter, ForTable(entry.importance),
           absl::StrFormat("%.3g - %.3g", entry.lower, entry.upper)});
    }
  }
  PrintTable(table, format, out);
  if (format == OutputFormat::kTable) PrintFooter(report, options, out);
}

}  // namespace hptune::cli
