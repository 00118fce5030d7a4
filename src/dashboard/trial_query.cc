#include "src/dashboard/trial_query.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace hptune::dashboard {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxWhereBytes = 16 << 10;

absl::StatusOr<int64_t> Integer(const QueryParams& params,
                                const std::string& name, int64_t fallback,
                                int64_t low, int64_t high) {
  auto it = params.find(name);
  if (it == params.end()) return fallback;
  int64_t value = 0;
  if (!absl::SimpleAtoi(it->second, &value) || value < low || value > high) {
    return BadQueryValue(
        name, it->second,
        absl::StrCat("expected an integer from ", low, " to ", high));
  }
  return value;
}

absl::StatusOr<std::pair<double, double>> Range(const Json& j,
                                                const std::string& name) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_number() ||
      !j[1].is_number()) {
    return absl::InvalidArgumentError(
        absl::StrCat("where: ", name, " must be [low, high], got ", j.dump()));
  }
  return std::pair<double, double>(j[0].get<double>(), j[1].get<double>());
}

absl::Status ParseWhere(const std::string& text, const StudySpec& spec,
                        TrialQuery& query) {
  if (text.size() > kMaxWhereBytes) {
    return BadQueryValue(
        "where", text, absl::StrCat("longer than ", kMaxWhereBytes, " bytes"));
  }
  Json where = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!where.is_object())
    return BadQueryValue("where", text, "not a JSON object");
  for (const auto& [key, value] : where.items()) {
    if (key == "value") {
      auto range = Range(value, "value");
      if (!range.ok()) return range.status();
      query.value_range = *range;
    } else if (key == "metrics" && value.is_object()) {
      for (const auto& [name, filter] : value.items()) {
        if (name.empty() || name.size() > kMaxMetricName) {
          return BadQueryValue("where", text,
                               absl::StrCat("a metric name has 1 to ",
                                            kMaxMetricName, " bytes"));
        }
        auto range = Range(filter, name);
        if (!range.ok()) return range.status();
        query.metric_ranges[name] = *range;
      }
    } else if (key == "params" && value.is_object()) {
      for (const auto& [name, filter] : value.items()) {
        const ParameterSpec* param = spec.search_space.Find(name);
        if (param == nullptr) {
          return BadQueryValue("where", text,
                               absl::StrCat("no parameter \"", name, "\""));
        }
        if (param->type != ParameterType::kCategorical) {
          auto range = Range(filter, name);
          if (!range.ok()) return range.status();
          query.param_ranges[name] = *range;
          continue;
        }
        if (!filter.is_array()) {
          return BadQueryValue("where", text,
                               absl::StrCat(name, " must list its categories"));
        }
        auto& kept = query.param_categories[name];
        for (const Json& category : filter) {
          if (!category.is_string()) {
            return BadQueryValue(
                "where", text, absl::StrCat(name, ": categories are strings"));
          }
          kept.insert(category.get<std::string>());
        }
      }
    } else {
      return BadQueryValue(
          "where", text,
          absl::StrCat("unknown key \"", key,
                       "\" (expected \"params\", \"metrics\" or "
                       "\"value\")"));
    }
  }
  return absl::OkStatus();
}

bool InRange(double x, const std::pair<double, double>& range) {
  return x >= std::min(range.first, range.second) &&
         x <= std::max(range.first, range.second);
}

bool Matches(const Trial& trial, const std::optional<double>& value,
             const TrialQuery& query) {
  if (!query.states.empty() && !query.states.contains(trial.state)) {
    return false;
  }
  if (query.value_range && !(value && InRange(*value, *query.value_range))) {
    return false;
  }
  for (const auto& [name, range] : query.param_ranges) {
    auto it = trial.parameters.find(name);
    if (it == trial.parameters.end() || it->second.is_string() ||
        !InRange(it->second.AsDouble(), range)) {
      return false;
    }
  }
  for (const auto& [name, range] : query.metric_ranges) {
    std::optional<double> x = trial.FinalObjective(name);
    if (!x || !std::isfinite(*x) || !InRange(*x, range)) return false;
  }
  for (const auto& [name, kept] : query.param_categories) {
    auto it = trial.parameters.find(name);
    if (it == trial.parameters.end() || !it->second.is_string() ||
        !kept.contains(it->second.AsString())) {
      return false;
    }
  }
  return true;
}

// Orders two present keys; nullopt (no value) goes last either way.
template <typename T>
int CompareOptional(const std::optional<T>& a, const std::optional<T>& b,
                    bool descending) {
  if (!a || !b) return a ? -1 : (b ? 1 : 0);
  if (*a == *b) return 0;
  const bool less = *a < *b;
  return (less != descending) ? -1 : 1;
}

// A parameter's sort key: a number, or (0, text) for a category; the
// text is the trial's own (the trials outlive the sort).
using ParamKey = std::optional<std::pair<double, std::string_view>>;
struct Row {
  const Trial* trial;
  std::optional<double> value;
  std::optional<double> metric;  // kMetric: the sorted metric's value.
  ParamKey param;                // kParam: the sorted parameter's value.
};

// A categorical parameter's keys become the category's rank among the
// values present, so that the sort compares numbers, not text. Left as
// they are when some key is a number (a parameter is one or the other).
void IndexCategories(std::vector<Row>& rows) {
  // A parameter has few categories: a set of them, not a sort of every
  // trial's text.
  std::map<std::string_view, double> rank;
  for (const Row& row : rows) {
    if (!row.param) continue;
    if (row.param->second.empty()) return;
    rank.emplace(row.param->second, 0.0);
  }
  double next = 0;
  for (auto& [category, at] : rank) at = next++;
  for (Row& row : rows) {
    if (row.param) {
      row.param = std::pair(rank[row.param->second], std::string_view());
    }
  }
}

}  // namespace

absl::Status BadQueryValue(std::string_view name, std::string_view value,
                           std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(name), " \"", std::string(value.substr(0, 200)),
                   "\": ", std::string(why)));
}

std::optional<int> TrialSlot(const Trial& trial) {
  const size_t at = trial.client_id.rfind("/slot-");
  int slot = 0;
  if (at == std::string::npos ||
      !absl::SimpleAtoi(trial.client_id.substr(at + 6), &slot)) {
    return std::nullopt;
  }
  return slot;
}

absl::StatusOr<TrialQuery> ParseTrialQuery(const QueryParams& params,
                                           const StudySpec& spec,
                                           int64_t max_limit) {
  TrialQuery query;
  auto offset = Integer(params, "offset", 0, 0, int64_t{1} << 40);
  if (!offset.ok()) return offset.status();
  query.offset = *offset;
  auto limit =
      Integer(params, "limit", std::min<int64_t>(50, max_limit), 1, max_limit);
  if (!limit.ok()) return limit.status();
  query.limit = *limit;
  if (auto it = params.find("sort"); it != params.end()) {
    const std::string& sort = it->second;
    static const std::map<std::string, TrialSort> kSorts = {
        {"number", TrialSort::kNumber},
        {"value", TrialSort::kValue},
        {"state", TrialSort::kState},
        {"start_time", TrialSort::kStartTime},
        {"end_time", TrialSort::kEndTime}};
    if (auto known = kSorts.find(sort); known != kSorts.end()) {
      query.sort = known->second;
    } else if (sort.starts_with("param:") &&
               spec.search_space.Find(sort.substr(6)) != nullptr) {
      query.sort = TrialSort::kParam;
      query.sort_param = sort.substr(6);
    } else if (sort.starts_with("metric:") && sort.size() > 7 &&
               sort.size() <= 7 + kMaxMetricName) {
      query.sort = TrialSort::kMetric;
      query.sort_metric = sort.substr(7);
    } else {
      return BadQueryValue(
          "sort", sort,
          "expected number, value, state, start_time, end_time, "
          "param:NAME with a parameter of the study or metric:NAME");
    }
  }
  if (auto it = params.find("order"); it != params.end()) {
    if (it->second != "asc" && it->second != "desc") {
      return BadQueryValue("order", it->second, "expected asc or desc");
    }
    query.descending = it->second == "desc";
  }
  if (auto it = params.find("states"); it != params.end()) {
    const std::vector<std::string> names =
        absl::StrSplit(it->second, ',', absl::SkipEmpty());
    for (const std::string& name : names) {
      std::optional<TrialState> state = ParseTrialState(name);
      if (!state) {
        return BadQueryValue("states", it->second,
                             absl::StrCat("unknown state \"", name, "\""));
      }
      query.states.insert(*state);
    }
  }
  if (auto it = params.find("where");
      it != params.end() && !it->second.empty()) {
    if (absl::Status s = ParseWhere(it->second, spec, query); !s.ok()) return s;
  }
  return query;
}

std::vector<const Trial*> SelectTrials(
    const std::vector<std::shared_ptr<const Trial>>& trials,
    const StudySpec& spec, const TrialQuery& query, size_t sorted) {
  // Keys are read once per trial, not at each of the sort's comparisons.
  auto param_key = [&](const Trial& t) -> ParamKey {
    auto it = t.parameters.find(query.sort_param);
    if (it == t.parameters.end()) return std::nullopt;
    if (it->second.is_string()) {
      return std::pair(0.0, std::string_view(it->second.AsString()));
    }
    return std::pair(it->second.AsDouble(), std::string_view());
  };
  std::vector<Row> rows;
  rows.reserve(trials.size());
  for (const auto& trial : trials) {
    if (trial == nullptr) continue;
    std::optional<double> value = trial->FinalObjective(spec.metric_tag());
    if (value && !std::isfinite(*value)) value.reset();
    if (!Matches(*trial, value, query)) continue;
    std::optional<double> metric;
    if (query.sort == TrialSort::kMetric) {
      metric = trial->FinalObjective(query.sort_metric);
      if (metric && !std::isfinite(*metric)) metric.reset();
    }
    ParamKey param;
    if (query.sort == TrialSort::kParam) param = param_key(*trial);
    rows.push_back({trial.get(), value, metric, std::move(param)});
  }
  if (query.sort == TrialSort::kParam) IndexCategories(rows);
  const bool desc = query.descending;
  auto compare = [&](const Row& a, const Row& b) -> int {
    switch (query.sort) {
      case TrialSort::kNumber:
        return 0;
      case TrialSort::kValue:
        return CompareOptional(a.value, b.value, desc);
      case TrialSort::kMetric:
        return CompareOptional(a.metric, b.metric, desc);
      case TrialSort::kState:
        return CompareOptional(std::optional(ToString(a.trial->state)),
                               std::optional(ToString(b.trial->state)), desc);
      case TrialSort::kStartTime:
        return CompareOptional(a.trial->start_time, b.trial->start_time, desc);
      case TrialSort::kEndTime:
        return CompareOptional(a.trial->end_time, b.trial->end_time, desc);
      case TrialSort::kParam:
        return CompareOptional(a.param, b.param, desc);
    }
    return 0;
  };
  // Ties go by number, which is unique: the order is total, so a sort of
  // the first `sorted` rows is the stable sort's.
  auto before = [&](const Row& a, const Row& b) {
    const int c = compare(a, b);
    if (c != 0) return c < 0;
    return desc && query.sort == TrialSort::kNumber
               ? a.trial->number > b.trial->number
               : a.trial->number < b.trial->number;
  };
  if (sorted < rows.size()) {
    std::partial_sort(rows.begin(), rows.begin() + sorted, rows.end(), before);
  } else {
    std::sort(rows.begin(), rows.end(), before);
  }
  std::vector<const Trial*> selected;
  selected.reserve(rows.size());
  for (const Row& row : rows) selected.push_back(row.trial);
  return selected;
}

}  // namespace hptune::dashboard
