#include "algorithms/stopping/dominance_stopping_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/pareto.h"
#include "algorithms/stopping/warm_up.h"

namespace hptune::algorithms {
namespace {

// A report with every objective: its step and values, maximised.
struct Point {
  int64_t step = 0;
  std::vector<double> raw;
  std::vector<double> up;
};

// The trial's reports with every objective (finite), in report order.
std::vector<Point> Points(const Trial& trial,
                          const std::vector<MetricSpec>& objectives) {
  std::vector<Point> points;
  for (const Measurement& m : trial.measurements) {
    Point p{.step = m.step};
    for (const MetricSpec& o : objectives) {
      std::optional<double> v = m.Get(o.id);
      if (!v || !std::isfinite(*v)) break;
      p.raw.push_back(*v);
      p.up.push_back(o.goal == Goal::kMaximize ? *v : -*v);
    }
    if (p.raw.size() == objectives.size()) points.push_back(std::move(p));
  }
  return points;
}

// The latest point at a step <= s (the last reported of the largest step).
const Point* AtStep(const std::vector<Point>& points, int64_t s) {
  const Point* found = nullptr;
  for (const Point& p : points) {
    if (p.step <= s && (found == nullptr || p.step >= found->step)) found = &p;
  }
  return found;
}

std::string Describe(const Point& p,
                     const std::vector<MetricSpec>& objectives) {
  std::string text;
  for (size_t i = 0; i < objectives.size(); ++i) {
    absl::StrAppend(&text, i ? ", " : "", objectives[i].id, " ", p.raw[i]);
  }
  return text;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DominanceStoppingPolicy>>
DominanceStoppingPolicy::Create(DominanceStoppingOptions options) {
  if (options.min_completed_trials < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dominance stopping: min_completed_trials must be at least 1, got ",
        options.min_completed_trials));
  }
  if (!(options.min_step_fraction >= 0 && options.min_step_fraction <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dominance stopping: min_step_fraction must be in [0, 1], got ",
        options.min_step_fraction));
  }
  return std::unique_ptr<DominanceStoppingPolicy>(
      new DominanceStoppingPolicy(options));
}

absl::StatusOr<std::vector<StoppingDecision>> DominanceStoppingPolicy::Decide(
    const Problem& problem, const std::vector<Trial>& trials) {
  const std::vector<MetricSpec> objectives = problem.Objectives();
  if (objectives.empty()) {
    return absl::InvalidArgumentError(
        "dominance stopping: the study has no objective");
  }
  struct Reference {
    int64_t trial;
    std::vector<Point> points;
  };
  std::vector<Reference> references;
  int64_t longest = 0;
  for (const Trial& t : trials) {
    if (t.state != TrialState::kSucceeded || !IsFeasibleResult(problem, t)) {
      continue;
    }
    Reference r{t.number, Points(t, objectives)};
    if (r.points.empty()) continue;
    for (const Point& p : r.points) longest = std::max(longest, p.step);
    references.push_back(std::move(r));
  }
  const int64_t first_step =
      FirstJudgedStep(options_.min_step_fraction, longest);
  std::vector<const Trial*> active;
  for (const Trial& t : trials) {
    if (t.state == TrialState::kActive) active.push_back(&t);
  }
  std::sort(active.begin(), active.end(), [](const Trial* a, const Trial* b) {
    return a->number < b->number;
  });
  std::vector<StoppingDecision> decisions;
  for (const Trial* t : active) {
    StoppingDecision decision{.trial = t->number};
    const std::vector<Point> points = Points(*t, objectives);
    if (points.empty()) {
      decision.reason = "no report with every objective yet";
      decisions.push_back(std::move(decision));
      continue;
    }
    const Point* latest = AtStep(points, INT64_MAX);
    const int64_t step = latest->step;
    if (step < first_step) {
      decision.reason =
          TooEarlyReason(step, first_step, options_.min_step_fraction, longest);
      decisions.push_back(std::move(decision));
      continue;
    }
    int compared = 0;
    for (const Reference& r : references) {
      const Point* p = AtStep(r.points, step);
      if (p == nullptr) continue;
      ++compared;
      if (!decision.stop && Dominates(p->up, latest->up)) {
        decision.stop = true;
        decision.reason =
            absl::StrCat("at step ", step, " (", Describe(*latest, objectives),
                         ") is dominated by trial ", r.trial, " (",
                         Describe(*p, objectives), ")");
      }
    }
    if (compared < options_.min_completed_trials) {
      decision.stop = false;
      decision.reason = absl::StrCat(
          compared,
          " completed trials have a report with every objective by "
          "step ",
          step, "; ", options_.min_completed_trials, " are needed");
    } else if (!decision.stop) {
      decision.reason =
          absl::StrCat("at step ", step, " (", Describe(*latest, objectives),
                       ") no completed trial of ", compared, " dominates it");
    }
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

}  // namespace hptune::algorithms
