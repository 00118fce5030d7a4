#include "benchmarks/curves/curve_table.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "algorithms/encoding/unit_cube.h"
#include "nlohmann/json.hpp"
#include "zlib.h"

namespace hptune::curves {
namespace {

// Bounds on what a table may hold, so a corrupt file fails clearly.
constexpr int kMaxSteps = 10'000;
constexpr int kMaxConfigs = 1'000'000;
constexpr int kMaxParameters = 64;
constexpr size_t kMaxTableBytes = size_t{1} << 30;  // Uncompressed.

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A gzip file's uncompressed text.
absl::StatusOr<std::string> ReadGzipFile(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (in == nullptr) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  }
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(in, buffer, sizeof buffer)) > 0 &&
         text.size() <= kMaxTableBytes) {
    text.append(buffer, n);
  }
  // A stream cut short reads as its end, with Z_BUF_ERROR left to ask for.
  int error = Z_OK;
  const std::string message = gzerror(in, &error);
  gzclose(in);
  if (n < 0 || error != Z_OK) {
    return absl::DataLossError(absl::StrCat(path, ": ", message));
  }
  if (text.size() > kMaxTableBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": more than ", kMaxTableBytes, " bytes"));
  }
  return text;
}

absl::StatusOr<ParameterSpec> ParseParameter(const nlohmann::json& p,
                                             const std::string& where) {
  ParameterSpec spec;
  spec.name = p.value("name", "");
  const std::string type = p.value("type", "");
  if (type == "categorical") {
    spec.type = ParameterType::kCategorical;
    spec.categorical_values = p.at("values").get<std::vector<std::string>>();
    return spec;
  }
  if (type != "double" && type != "integer") {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": parameters.", spec.name, ".type: unknown \"", type, "\""));
  }
  spec.type =
      type == "double" ? ParameterType::kDouble : ParameterType::kInteger;
  spec.min_value = p.at("low").get<double>();
  spec.max_value = p.at("high").get<double>();
  spec.scale =
      p.value("scale", "") == "log" ? ScaleType::kLog : ScaleType::kLinear;
  return spec;
}

absl::Status ParseManifest(const std::string& path, CurveTable& table) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  try {
    const nlohmann::json m = nlohmann::json::parse(*text);
    table.task = m.at("task").get<std::string>();
    table.metric_name = m.at("metric").get<std::string>();
    table.steps = m.at("steps").get<int>();
    if (table.steps < 1 || table.steps > kMaxSteps) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": steps: ", table.steps, " is not in [1, ", kMaxSteps, "]"));
    }
    std::vector<ParameterSpec> params;
    for (const auto& p : m.at("parameters")) {
      auto spec = ParseParameter(p, path);
      if (!spec.ok()) return spec.status();
      params.push_back(*std::move(spec));
    }
    if (params.empty() || params.size() > kMaxParameters) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": parameters: ", params.size(), " is not in [1, ",
                       kMaxParameters, "]"));
    }
    table.space = SearchSpace(std::move(params));
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", e.what()));
  }
  return algorithms::ValidateForEncoding(table.space);
}

absl::StatusOr<ParameterValue> ParseValue(const ParameterSpec& spec,
                                          const std::string& cell) {
  if (spec.type == ParameterType::kCategorical) {
    return ParameterValue::Categorical(cell);
  }
  double v = 0;
  if (!absl::SimpleAtod(cell, &v)) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a number: \"", cell, "\""));
  }
  if (spec.type == ParameterType::kInteger) {
    return ParameterValue::Integer(static_cast<int64_t>(v));
  }
  return ParameterValue::Double(v);
}

// One CSV row: id, the parameters, steps metrics, steps costs.
absl::Status ParseRow(const std::vector<std::string>& cells, CurveTable& t) {
  const auto& params = t.space.parameters();
  const size_t want = 1 + params.size() + 2 * t.steps;
  if (cells.size() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat(cells.size(), " columns, expected ", want));
  }
  ParameterAssignment config;
  for (size_t p = 0; p < params.size(); ++p) {
    auto v = ParseValue(params[p], cells[1 + p]);
    if (!v.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "column ", 2 + p, " (", params[p].name, "): ", v.status().message()));
    }
    config[params[p].name] = *std::move(v);
  }
  std::vector<double> metric(t.steps), cost(t.steps);
  for (int s = 0; s < 2 * t.steps; ++s) {
    const size_t col = 1 + params.size() + s;
    double v = 0;
    if (!absl::SimpleAtod(cells[col], &v) || !std::isfinite(v)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "column ", col + 1, ": not a finite number: \"", cells[col], "\""));
    }
    (s < t.steps ? metric[s] : cost[s - t.steps]) = v;
  }
  t.configs.push_back(std::move(config));
  t.metric.push_back(std::move(metric));
  t.cost.push_back(std::move(cost));
  return absl::OkStatus();
}

absl::Status ParseCsv(const std::string& path, CurveTable& table) {
  auto text = ReadTableText(path);
  if (!text.ok()) return text.status();
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    ++line_number;
    if (line_number == 1 || line.empty()) continue;  // The header.
    if (table.configs.size() >= kMaxConfigs) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": more than ", kMaxConfigs, " configurations"));
    }
    const std::vector<std::string> cells = absl::StrSplit(line, ',');
    if (auto s = ParseRow(cells, table); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", s.message()));
    }
  }
  if (table.configs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no configurations"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadTableText(const std::string& path) {
  return path.ends_with(".gz") ? ReadGzipFile(path) : ReadFile(path);
}

double CurveTable::BestValue() const {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& curve : metric) {
    best = std::min(best, *std::min_element(curve.begin(), curve.end()));
  }
  return best;
}

absl::StatusOr<CurveTable> LoadCurveTable(const std::string& dir,
                                          const std::string& task) {
  CurveTable table;
  const std::string base = absl::StrCat(dir, "/", task);
  if (auto s = ParseManifest(base + ".manifest.json", table); !s.ok()) return s;
  // <task>.csv.gz as generate_curves.py writes it; a plain .csv where only
  // it exists.
  const bool plain = !std::filesystem::exists(base + ".csv.gz") &&
                     std::filesystem::exists(base + ".csv");
  if (auto s = ParseCsv(base + (plain ? ".csv" : ".csv.gz"), table); !s.ok()) {
    return s;
  }
  return table;
}

absl::Status KeepFirstConfigurations(int n, CurveTable& table) {
  if (n < 1 || static_cast<size_t>(n) > table.configs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("configurations: ", n, " is not in [1, ",
                     table.configs.size(), "] (table ", table.task, ")"));
  }
  table.configs.resize(n);
  table.metric.resize(n);
  table.cost.resize(n);
  return absl::OkStatus();
}

absl::StatusOr<int> NearestConfiguration(const CurveTable& table,
                                         const ParameterAssignment& point) {
  const auto& params = table.space.parameters();
  std::vector<double> u(params.size());
  for (size_t p = 0; p < params.size(); ++p) {
    auto it = point.find(params[p].name);
    if (it == point.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("point: no value for parameter ", params[p].name));
    }
    if (params[p].type == ParameterType::kCategorical) continue;
    auto coordinate = algorithms::Encode(params[p], it->second);
    if (!coordinate.ok()) return coordinate.status();
    u[p] = *coordinate;
  }
  int best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < table.configs.size(); ++i) {
    double d = 0;
    for (size_t p = 0; p < params.size() && d < best_distance; ++p) {
      const ParameterValue& v = table.configs[i].at(params[p].name);
      if (params[p].type == ParameterType::kCategorical) {
        d += v == point.at(params[p].name) ? 0 : 1;
        continue;
      }
      const double diff = algorithms::Encode(params[p], v).value_or(0) - u[p];
      d += diff * diff;
    }
    if (d < best_distance) {
      best_distance = d;
      best = static_cast<int>(i);
    }
  }
  return best;
}

}  // namespace hptune::curves
