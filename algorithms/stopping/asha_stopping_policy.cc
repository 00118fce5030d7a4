#include "algorithms/stopping/asha_stopping_policy.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/algorithms/learning_curve.h"
#include "hptune/core/trial_resume.h"

namespace hptune::algorithms {
namespace {

constexpr int64_t kMaxStep = std::numeric_limits<int64_t>::max();

// r * eta^s, saturating at kMaxStep.
int64_t FirstRung(int64_t r, int eta, int s) {
  int64_t step = r;
  for (int i = 0; i < s; ++i) {
    if (step > kMaxStep / eta) return kMaxStep;
    step *= eta;
  }
  return step;
}

// The rungs R_k = r * eta^(s + k) that are <= max_step, lowest first.
std::vector<int64_t> RungsUpTo(int64_t first_rung, int eta, int64_t max_step) {
  std::vector<int64_t> rungs;
  for (int64_t step = first_rung; step <= max_step; step *= eta) {
    rungs.push_back(step);
    // step * eta > max_step exactly when step > floor(max_step / eta); this
    // also keeps the product from overflowing.
    if (step > max_step / eta) break;
  }
  return rungs;
}

// "1st", "2nd", "3rd", "4th", ..., "11th", ..., "21st".
std::string Ordinal(int n) {
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    switch (n % 10) {
      case 1:
        suffix = "st";
        break;
      case 2:
        suffix = "nd";
        break;
      case 3:
        suffix = "rd";
        break;
      default:
        break;
    }
  }
  return absl::StrCat(n, suffix);
}

// Optuna's "auto": max(1, floor(L / divisor)) from the first completed
// trial.
std::optional<int64_t> AutoMinResource(const std::vector<Trial>& trials,
                                       const std::string& metric,
                                       int64_t divisor) {
  const Trial* first = nullptr;
  auto end_of = [](const Trial& t) {
    return t.end_time.value_or(Timestamp::max());
  };
  for (const Trial& t : trials) {
    if (t.state != TrialState::kSucceeded || t.stopped_early) continue;
    if (LearningCurve(t, metric).empty()) continue;
    if (first == nullptr || std::pair(end_of(t), t.number) <
                                std::pair(end_of(*first), first->number)) {
      first = &t;
    }
  }
  if (first == nullptr) return std::nullopt;
  return std::max<int64_t>(1,
                           LearningCurve(*first, metric).max_step() / divisor);
}

// Why a trial at `max_step` goes on: the rungs of `rungs` it `passed`
// (empty: none judged yet), and the next rung.
std::string GoesOnReason(int64_t max_step,
                         const std::vector<std::string>& passed,
                         const std::vector<int64_t>& rungs, int64_t first_rung,
                         int eta) {
  const int64_t next_rung = rungs.empty() ? first_rung
                            : rungs.back() > kMaxStep / eta
                                ? kMaxStep
                                : rungs.back() * eta;
  if (passed.empty()) {
    return absl::StrCat("step ", max_step,
                        " has not been judged at a rung; next rung at step ",
                        next_rung);
  }
  return absl::StrCat("promoted at rungs ", absl::StrJoin(passed, ", "),
                      "; next rung at step ", next_rung);
}

// Whether `t`'s values at the rungs count.
bool Competes(const Trial& t) {
  return t.state == TrialState::kSucceeded || t.state == TrialState::kActive ||
         t.state == TrialState::kStopping;
}

// Whether `a` reached `step` before `b` did: by the time of the reaching
// report, then by trial number. Both must have reached it.
bool ReachedBefore(const LearningCurve& a, const LearningCurve& b,
                   int64_t step) {
  return std::pair(*a.ReachedAt(step), a.trial()) <
         std::pair(*b.ReachedAt(step), b.trial());
}

}  // namespace

absl::StatusOr<std::unique_ptr<AshaStoppingPolicy>> AshaStoppingPolicy::Create(
    AshaOptions options) {
  if (options.min_resource && *options.min_resource < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ASHA: min_resource must be at least 1 (or auto), got ",
                     *options.min_resource));
  }
  if (options.reduction_factor < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("ASHA: reduction_factor must be at least 2, got ",
                     options.reduction_factor));
  }
  if (options.min_early_stopping_rate < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ASHA: min_early_stopping_rate must be at least 0, got ",
                     options.min_early_stopping_rate));
  }
  if (options.auto_divisor < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ASHA: auto_divisor must be at least 1, got ", options.auto_divisor));
  }
  return std::unique_ptr<AshaStoppingPolicy>(new AshaStoppingPolicy(options));
}

AshaOptions AshaResumeOptions() {
  AshaOptions options;
  options.auto_divisor = 2 * static_cast<int64_t>(options.reduction_factor);
  options.resume = true;
  return options;
}

absl::StatusOr<std::vector<StoppingDecision>> AshaStoppingPolicy::Decide(
    const Problem& problem, const std::vector<Trial>& trials) {
  const std::string& metric = problem.metric_tag();
  if (metric.empty()) {
    return absl::InvalidArgumentError("ASHA: the study has no metric tag");
  }
  const int eta = options_.reduction_factor;
  std::optional<int64_t> min_resource = options_.min_resource;
  if (!min_resource) {
    min_resource = AutoMinResource(trials, metric, options_.auto_divisor);
  }

  // Every trial whose values at the rungs count, and the judged ones.
  std::vector<LearningCurve> competitors;
  std::vector<const Trial*> trial_of;
  std::vector<size_t> judged;
  for (const Trial& t : trials) {
    if (!Competes(t)) continue;
    if (t.state == TrialState::kActive) judged.push_back(competitors.size());
    competitors.emplace_back(t, metric);
    trial_of.push_back(&t);
  }
  std::sort(judged.begin(), judged.end(), [&](size_t a, size_t b) {
    return competitors[a].trial() < competitors[b].trial();
  });

  std::vector<StoppingDecision> decisions;
  for (size_t index : judged) {
    const LearningCurve& curve = competitors[index];
    StoppingDecision decision{.trial = curve.trial()};
    if (!min_resource) {
      decision.reason =
          "no completed trial yet to place the rungs (min_resource auto)";
      decisions.push_back(std::move(decision));
      continue;
    }
    if (curve.empty()) {
      decision.reason = absl::StrCat("no value of ", metric, " reported yet");
      decisions.push_back(std::move(decision));
      continue;
    }
    const int64_t first_rung =
        FirstRung(*min_resource, eta, options_.min_early_stopping_rate);
    const std::vector<int64_t> rungs =
        RungsUpTo(first_rung, eta, curve.max_step());
    std::vector<std::string> passed;
    // A continuation's copied curve passed these rungs before it existed.
    const int64_t resumed_at = ResumedAtStep(*trial_of[index]);
    for (int64_t rung : rungs) {
      std::optional<double> value = curve.ValueAtOrBefore(rung);
      if (!value || rung <= resumed_at) continue;
      std::vector<double> values = {*value};
      for (size_t other = 0; other < competitors.size(); ++other) {
        const LearningCurve& c = competitors[other];
        if (other == index || !c.ReachedAt(rung)) continue;
        std::optional<double> v = c.ValueAtOrBefore(rung);
        if (v && ReachedBefore(c, curve, rung)) values.push_back(*v);
      }
      // Best first; the k-th best is the bar for the top 1/eta.
      std::sort(values.begin(), values.end(),
                [&](double a, double b) { return problem.IsBetter(a, b); });
      const int n = static_cast<int>(values.size());
      const int k = std::max(1, n / eta);
      const double bar = values[k - 1];
      if (problem.IsBetter(bar, *value)) {
        decision.stop = true;
        decision.reason =
            absl::StrCat("value ", *value, " at the rung at step ", rung,
                         " is not in the top 1/", eta, " of the ", n,
                         " trials there: ", Ordinal(k), " best is ", bar);
        break;
      }
      passed.push_back(absl::StrCat("step ", rung, " (", *value,
                                    " within the top ", k, " of ", n, ")"));
    }
    if (!decision.stop) {
      decision.reason =
          GoesOnReason(curve.max_step(), passed, rungs, first_rung, eta);
    }
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

absl::StatusOr<std::optional<int64_t>> AshaStoppingPolicy::TrialToResume(
    const Problem& problem, const std::vector<Trial>& trials) {
  const std::string& metric = problem.metric_tag();
  if (!options_.resume || metric.empty()) return std::nullopt;
  const int eta = options_.reduction_factor;
  std::optional<int64_t> min_resource = options_.min_resource;
  if (!min_resource) {
    min_resource = AutoMinResource(trials, metric, options_.auto_divisor);
  }
  if (!min_resource) return std::nullopt;
  const int64_t first_rung =
      FirstRung(*min_resource, eta, options_.min_early_stopping_rate);
  std::vector<LearningCurve> competitors;
  for (const Trial& t : trials) {
    if (Competes(t)) competitors.emplace_back(t, metric);
  }
  // The floor(n / eta)-th best of the n values at each rung (nullopt when
  // n < eta), worked out once per rung.
  std::map<int64_t, std::optional<double>> bars;
  auto bar_at = [&](int64_t rung) -> std::optional<double> {
    if (auto known = bars.find(rung); known != bars.end()) return known->second;
    std::vector<double> values;
    for (const LearningCurve& c : competitors) {
      if (!c.ReachedAt(rung)) continue;
      if (std::optional<double> v = c.ValueAtOrBefore(rung)) {
        values.push_back(*v);
      }
    }
    const size_t k = values.size() / eta;
    std::optional<double> bar;
    if (k > 0) {
      std::nth_element(
          values.begin(), values.begin() + (k - 1), values.end(),
          [&](double a, double b) { return problem.IsBetter(a, b); });
      bar = values[k - 1];
    }
    return bars[rung] = bar;
  };
  auto promoted_at = [&](int64_t rung, double value) {
    const std::optional<double> bar = bar_at(rung);
    return bar && !problem.IsBetter(*bar, value);
  };
  // The candidate's highest rung, its value there, its number.
  std::optional<std::tuple<int64_t, double, int64_t>> best;
  for (const Trial& t : trials) {
    if (t.state != TrialState::kSucceeded || !t.stopped_early) continue;
    const LearningCurve curve(t, metric);
    const std::vector<int64_t> rungs =
        RungsUpTo(first_rung, eta, curve.empty() ? 0 : curve.max_step());
    if (rungs.empty()) continue;  // Stopped before any rung: not by ASHA.
    std::optional<double> value;
    bool promoted = true;
    for (int64_t rung : rungs) {
      value = curve.ValueAtOrBefore(rung);
      promoted = value && promoted_at(rung, *value);
      if (!promoted) break;
    }
    if (!promoted) continue;
    auto better = [&](const std::tuple<int64_t, double, int64_t>& other) {
      const auto& [rung, v, number] = other;
      if (rungs.back() != rung) return rungs.back() > rung;
      if (*value != v) return problem.IsBetter(*value, v);
      return t.number < number;
    };
    if (!best || better(*best)) best.emplace(rungs.back(), *value, t.number);
  }
  if (!best) return std::nullopt;
  return std::get<2>(*best);
}

}  // namespace hptune::algorithms
