#include "algorithms/gp/gp_history.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "algorithms/gp/output_warping.h"

namespace hptune::algorithms::gp {
namespace {

// Mean 0, variance 1 (all 0 when constant); returns the map applied, as
// (mean, sd), sd 0 when constant.
std::pair<double, double> Standardise(std::vector<double>& y) {
  if (y.empty()) return {0, 0};
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double variance = 0;
  for (double v : y) variance += (v - mean) * (v - mean);
  const double sd = std::sqrt(variance / static_cast<double>(y.size()));
  for (double& v : y) v = sd > 0 ? (v - mean) / sd : 0.0;
  return {mean, sd};
}

double Oriented(const MetricSpec& m, double value) {
  return m.goal == Goal::kMaximize ? value : -value;
}

}  // namespace

int GpHistory::feasible_count() const {
  return static_cast<int>(
      std::count_if(observations.begin(), observations.end(),
                    [](const Observation& o) { return o.feasible; }));
}

bool GpHistory::values_differ() const {
  const Observation* first = nullptr;
  for (const Observation& o : observations) {
    if (!o.feasible) continue;
    if (first == nullptr) {
      first = &o;
    } else if (o.value != first->value || o.metrics != first->metrics) {
      return true;
    }
  }
  return false;
}

int GpHistory::tied_best() const {
  const Observation* best = nullptr;
  int ties = 0;
  for (const Observation& o : observations) {
    if (!o.feasible) continue;
    if (best == nullptr || o.value > best->value) {
      best = &o;
      ties = 1;
    } else if (o.value == best->value) {
      ++ties;
    }
  }
  return ties;
}

int GpHistory::safe_count() const {
  return static_cast<int>(
      std::count_if(observations.begin(), observations.end(),
                    [](const Observation& o) { return o.safe; }));
}

GpHistory ReadHistory(const Problem& problem, const FeatureEncoding& encoding,
                      const std::vector<Trial>& completed,
                      const std::vector<Trial>& active) {
  GpHistory history;
  history.used = AssignmentSet::FromTrials(completed, active);
  struct Keyed {
    Timestamp end;
    int64_t number;
    Observation observation;
  };
  std::vector<Keyed> keyed;
  std::vector<MetricSpec> columns = problem.Objectives();
  history.objectives = static_cast<int>(columns.size());
  for (const MetricSpec& c : problem.Constraints()) {
    history.thresholds.push_back(Oriented(c, *c.safety_threshold));
    history.desired_safe_fraction =
        std::max(history.desired_safe_fraction,
                 c.desired_min_safe_trials_fraction.value_or(0));
    columns.push_back(c);
  }
  for (const Trial& t : completed) {
    auto skip = [&](const std::string& why) {
      history.skipped.push_back(absl::StrCat("trial ", t.number, ": ", why));
    };
    if (!IsTerminal(t.state)) {
      skip(absl::StrCat("state ", std::string(ToString(t.state)),
                        " is not terminal"));
      continue;
    }
    if (t.state == TrialState::kCancelled) {
      skip("CANCELLED, which says nothing about its parameters");
      continue;
    }
    absl::StatusOr<std::vector<double>> x = encoding.Encode(t.parameters);
    if (!x.ok()) {
      skip(std::string(x.status().message()));
      continue;
    }
    Observation observation{*std::move(x), 0.0, false, {}, false};
    if (t.state == TrialState::kSucceeded) {
      std::vector<double> values;
      bool finite = true;
      for (const MetricSpec& c : columns) {
        const std::optional<double> value = t.FinalObjective(c.id);
        if (!value.has_value()) break;
        if (!std::isfinite(*value)) {
          skip(absl::StrCat("non-finite value ", *value, " of metric \"", c.id,
                            "\""));
          finite = false;
          break;
        }
        values.push_back(Oriented(c, *value));
      }
      if (!finite) continue;
      if (values.size() == columns.size()) {
        observation.value = values.front();
        observation.feasible = true;
        observation.safe = true;
        for (size_t c = 0; c < history.thresholds.size(); ++c) {
          observation.safe =
              observation.safe &&
              values[history.objectives + c] >= history.thresholds[c];
        }
        observation.metrics = std::move(values);
      }
    }
    keyed.push_back(
        {t.end_time.value_or(Timestamp{}), t.number, std::move(observation)});
  }
  std::stable_sort(
      keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
        return a.end != b.end ? a.end < b.end : a.number < b.number;
      });
  for (Keyed& k : keyed)
    history.observations.push_back(std::move(k.observation));
  for (const Trial& t : active) {
    absl::StatusOr<std::vector<double>> x = encoding.Encode(t.parameters);
    if (x.ok()) {
      history.pending.push_back(*std::move(x));
    } else {
      history.skipped.push_back(
          absl::StrCat("pending trial ", t.number, ": ", x.status().message()));
    }
  }
  return history;
}

std::vector<double> Targets(const std::vector<Observation>& observations,
                            int column, bool warp) {
  std::vector<double> values;
  for (const Observation& o : observations) {
    if (o.feasible) values.push_back(column == 0 ? o.value : o.metrics[column]);
  }
  const std::vector<double> warped = warp ? WarpObjectives(values) : values;
  const auto [lo, hi] = std::minmax_element(warped.begin(), warped.end());
  // Failed points sit at the worst value (one unit below when all agree).
  const double worst = *lo < *hi ? *lo : *lo - 1;
  std::vector<double> targets;
  size_t next = 0;
  for (const Observation& o : observations) {
    targets.push_back(o.feasible ? warped[next++] : worst);
  }
  Standardise(targets);
  return targets;
}

ConstraintColumn ConstraintTargets(const std::vector<Observation>& observations,
                                   int column, double threshold) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const Observation& o : observations) {
    if (!o.feasible) continue;
    const double v = o.metrics[column];
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  }
  const double worst = lo < hi ? lo : lo - 1;
  ConstraintColumn result;
  for (const Observation& o : observations) {
    result.targets.push_back(o.feasible ? o.metrics[column] : worst);
  }
  const auto [mean, sd] = Standardise(result.targets);
  result.threshold = sd > 0 ? (threshold - mean) / sd : threshold - mean;
  return result;
}

std::vector<int> ModelRows(const std::vector<double>& targets) {
  const auto n = static_cast<int>(targets.size());
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  if (n <= kMaxModelPoints) return all;
  std::vector<char> keep(n, 0);
  const int quarter = kMaxModelPoints / 4;
  std::vector<int> by_value = all;
  std::stable_sort(by_value.begin(), by_value.end(),
                   [&](int a, int b) { return targets[a] > targets[b]; });
  for (int i = 0; i < quarter; ++i) keep[by_value[i]] = 1;
  for (int i = n - quarter; i < n; ++i) keep[i] = 1;
  std::vector<int> rest;
  for (int i = 0; i < n; ++i) {
    if (!keep[i]) rest.push_back(i);
  }
  const auto kept = static_cast<int>(std::count(keep.begin(), keep.end(), 1));
  const int room = kMaxModelPoints - kept;
  for (int k = 0; k < room; ++k) {
    keep[rest[static_cast<size_t>(k) * rest.size() / room]] = 1;
  }
  std::vector<int> chosen;
  for (int i = 0; i < n; ++i) {
    if (keep[i]) chosen.push_back(i);
  }
  return chosen;
}

}  // namespace hptune::algorithms::gp
