#include "algorithms/stopping/forecast.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace hptune::algorithms {

std::optional<double> BestFinalValue(
    Goal goal, std::span<const LearningCurve* const> completed) {
  std::optional<double> best;
  for (const LearningCurve* c : completed) {
    std::optional<double> last = c->ValueAtOrBefore(c->max_step());
    if (!last) continue;
    if (!best || (goal == Goal::kMaximize ? *last > *best : *last < *best)) {
      best = last;
    }
  }
  return best;
}

int64_t LongestCurve(std::span<const LearningCurve* const> completed) {
  int64_t longest = 0;
  for (const LearningCurve* c : completed) {
    longest = std::max(longest, c->max_step());
  }
  return longest;
}

std::optional<LineFit> FitLine(std::span<const double> x,
                               std::span<const double> y) {
  const size_t n = x.size();
  if (n < 2 || y.size() != n) return std::nullopt;
  double mean_x = 0, mean_y = 0;
  for (size_t i = 0; i < n; ++i) {
    mean_x += x[i];
    mean_y += y[i];
  }
  mean_x /= n;
  mean_y /= n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
  }
  if (!(sxx > 0)) return std::nullopt;
  LineFit fit;
  fit.slope = sxy / sxx;
  fit.intercept = mean_y - fit.slope * mean_x;
  for (size_t i = 0; i < n; ++i) {
    const double r = y[i] - (fit.intercept + fit.slope * x[i]);
    fit.sse += r * r;
  }
  fit.residual_sd = std::sqrt(fit.sse / n);
  return fit;
}

SplitCurves Split(std::span<const TrialCurve> trials) {
  SplitCurves split;
  for (const TrialCurve& trial : trials) {
    if (trial.state == TrialState::kSucceeded) {
      if (!trial.curve->empty()) split.completed.push_back(trial.curve);
    } else if (trial.state == TrialState::kActive) {
      split.active.push_back(trial.curve);
    }
  }
  std::sort(split.active.begin(), split.active.end(),
            [](const LearningCurve* a, const LearningCurve* b) {
              return a->trial() < b->trial();
            });
  return split;
}

std::optional<Prejudged> Prejudge(const LearningCurve& curve,
                                  const std::string& metric,
                                  int min_measurements, int64_t first_step) {
  // A diverged training never recovers its lost state: no warm-up for it.
  if (curve.diverged()) {
    return Prejudged{
        .stop = true,
        .reason = absl::StrCat("diverged: reported a non-finite ", metric)};
  }
  const int reported = static_cast<int>(curve.points().size());
  if (reported < min_measurements) {
    return Prejudged{.reason = absl::StrCat(reported, " values of ", metric,
                                            " reported, ", min_measurements,
                                            " needed before judging")};
  }
  if (curve.max_step() < first_step) {
    return Prejudged{.reason = absl::StrCat("step ", curve.max_step(),
                                            " is before step ", first_step,
                                            ", the first one judged")};
  }
  return std::nullopt;
}

std::string ForecastReason(bool stop, double forecast, int64_t step,
                           const std::string& how, double best) {
  return absl::StrCat("forecast ", forecast, " at step ", step, " (", how, ")",
                      stop ? " is" : " is not",
                      " worse than the best completed final value ", best);
}

}  // namespace hptune::algorithms
