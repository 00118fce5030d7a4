#include "src/algorithms/stopping/asha_stopping_policy.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/algorithms/learning_curve.h"

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

// Optuna's "auto": max(1, floor(L / 100)) from the first completed trial.
std::optional<int64_t> AutoMinResource(const std::vector<Trial>& trials,
                                       const std::string& metric) {
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
  return std::max<int64_t>(1, LearningCurve(*first, metric).max_step() / 100);
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
  return std::unique_ptr<AshaStoppingPolicy>(new AshaStoppingPolicy(options));
}

absl::StatusOr<std::vector<StoppingDecision>> AshaStoppingPolicy::Decide(
    const StudySpec& study, const std::vector<Trial>& trials) {
  const std::string& metric = study.metric_tag;
  if (metric.empty()) {
    return absl::InvalidArgumentError("ASHA: the study has no metric tag");
  }
  const int eta = options_.reduction_factor;
  std::optional<int64_t> min_resource = options_.min_resource;
  if (!min_resource) min_resource = AutoMinResource(trials, metric);

  // Every trial whose values at the rungs count, and the judged ones.
  std::vector<LearningCurve> competitors;
  std::vector<size_t> judged;
  for (const Trial& t : trials) {
    if (t.state != TrialState::kSucceeded && t.state != TrialState::kActive &&
        t.state != TrialState::kStopping) {
      continue;
    }
    if (t.state == TrialState::kActive) judged.push_back(competitors.size());
    competitors.emplace_back(t, metric);
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
    for (int64_t rung : rungs) {
      std::optional<double> value = curve.ValueAtOrBefore(rung);
      if (!value) continue;
      std::vector<double> values = {*value};
      for (size_t other = 0; other < competitors.size(); ++other) {
        const LearningCurve& c = competitors[other];
        if (other == index || !c.ReachedAt(rung)) continue;
        std::optional<double> v = c.ValueAtOrBefore(rung);
        if (v && ReachedBefore(c, curve, rung)) values.push_back(*v);
      }
      // Best first; the k-th best is the bar for the top 1/eta.
      std::sort(values.begin(), values.end(),
                [&](double a, double b) { return study.IsBetter(a, b); });
      const int n = static_cast<int>(values.size());
      const int k = std::max(1, n / eta);
      const double bar = values[k - 1];
      if (study.IsBetter(bar, *value)) {
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
      const int64_t next_rung = rungs.empty() ? first_rung
                                : rungs.back() > kMaxStep / eta
                                    ? kMaxStep
                                    : rungs.back() * eta;
      if (passed.empty()) {
        decision.reason = absl::StrCat("step ", curve.max_step(),
                                       " has not been judged at a rung; next "
                                       "rung at step ",
                                       next_rung);
      } else {
        decision.reason =
            absl::StrCat("promoted at rungs ", absl::StrJoin(passed, ", "),
                         "; next rung at step ", next_rung);
      }
    }
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

}  // namespace hptune::algorithms
