#include "benchmarks/quality/designer_run.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <utility>

#include "absl/strings/str_cat.h"
#include "algorithms/common/splitmix64.h"
#include "algorithms/gp/normal_draw.h"
#include "hptune/algorithms/registry.h"
#include "hptune/core/status.h"

namespace hptune::quality {
namespace {

// The engine's view of one study, kept in memory instead of a store.
class SimulatedStudy {
 public:
  SimulatedStudy(const TestFunction& function, const DesignerRunOptions& o)
      : function_(function) {
    spec_.search_space = function.space;
    spec_.goal = Goal::kMinimize;
    spec_.metric_tag = std::string(kObjectiveMetric);
    spec_.max_trials = o.budget;
    spec_.max_parallel_trials = o.workers;
    spec_.algorithm = o.algorithm;
    spec_.seed = o.seed;
    seed_ = o.seed;
    factory_ = o.factory ? o.factory : algorithms::CreateDesigner;
  }

  int suggested() const { return static_cast<int>(values_.size()); }
  bool has_pending() const { return !pending_.empty(); }

  // One SuggestTrials round: the new trials join the pending ones. Errors
  // say which designer, function, seed and round.
  absl::Status SuggestRound(int count) {
    absl::Status s = TrySuggestRound(count);
    if (s.ok()) return s;
    return absl::Status(s.code(),
                        absl::StrCat(Where(), ": ", std::string(s.message())));
  }

  // The oldest pending trial's worker reports its value.
  void CompleteOldest() {
    Trial t = std::move(pending_.front());
    pending_.pop_front();
    const double value = function_.evaluate(t.parameters);
    const double reported =
        function_.noise_sd > 0
            ? value + function_.noise_sd *
                          ObservationNoise(seed_, static_cast<int>(t.number))
            : value;
    values_[t.number - 1] = {value, reported};
    t.final_measurement = Measurement{
        .step = 1, .metrics = {{std::string(kObjectiveMetric), reported}}};
    t.state = TrialState::kSucceeded;
    completed_.push_back(std::move(t));
  }

  std::vector<RunTrial> TakeTrials() {
    std::vector<RunTrial> trials;
    trials.reserve(completed_.size());
    for (Trial& t : completed_) {
      trials.push_back({.number = static_cast<int>(t.number),
                        .origin = std::move(t.origin),
                        .parameters = std::move(t.parameters),
                        .value = values_[t.number - 1].value,
                        .reported = values_[t.number - 1].reported});
    }
    std::sort(trials.begin(), trials.end(),
              [](const RunTrial& a, const RunTrial& b) {
                return a.number < b.number;
              });
    return trials;
  }

 private:
  absl::Status TrySuggestRound(int count) {
    HPTUNE_ASSIGN_OR_RETURN(auto designer, factory_(spec_, seed_));
    HPTUNE_RETURN_IF_ERROR(designer->RestoreState(designer_state_));
    // Pending trials as a vector, oldest first, like the store lists them.
    std::vector<Trial> pending(pending_.begin(), pending_.end());
    HPTUNE_RETURN_IF_ERROR(designer->Update(completed_, pending));
    HPTUNE_ASSIGN_OR_RETURN(std::vector<algorithms::Suggestion> suggestions,
                            designer->Suggest(count));
    if (static_cast<int>(suggestions.size()) != count) {
      return absl::InternalError(absl::StrCat(
          "asked for ", count, " suggestions, got ", suggestions.size()));
    }
    for (const algorithms::Suggestion& s : suggestions) {
      if (absl::Status st = spec_.search_space.CheckAssignment(s.parameters);
          !st.ok()) {
        return absl::InternalError(
            absl::StrCat("infeasible suggestion: ", std::string(st.message())));
      }
    }
    for (algorithms::Suggestion& s : suggestions) {
      Trial t;
      t.number = suggested() + 1;
      t.parameters = std::move(s.parameters);
      t.origin = std::move(s.origin);
      t.state = TrialState::kActive;
      values_.push_back({});  // Set when the trial completes.
      pending_.push_back(std::move(t));
    }
    designer_state_ = designer->SaveState();
    return absl::OkStatus();
  }

  std::string Where() const {
    return absl::StrCat(std::string(ToString(spec_.algorithm)), " on ",
                        function_.name, " (seed ", seed_, ") after ",
                        suggested(), " trials");
  }

  const TestFunction& function_;
  StudySpec spec_;
  uint64_t seed_ = 0;
  DesignerFactory factory_;
  std::string designer_state_;
  std::vector<Trial> completed_;
  std::deque<Trial> pending_;
  struct Values {
    double value = 0;
    double reported = 0;
  };
  std::vector<Values> values_;  // By trial number - 1.
};

}  // namespace

absl::StatusOr<std::vector<RunTrial>> RunDesignerTrials(
    const TestFunction& function, const DesignerRunOptions& options) {
  if (options.budget < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("budget must be at least 1, got ", options.budget));
  }
  if (options.workers < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("workers must be at least 1, got ", options.workers));
  }
  SimulatedStudy study(function, options);
  HPTUNE_RETURN_IF_ERROR(
      study.SuggestRound(std::min(options.workers, options.budget)));
  while (study.has_pending()) {
    study.CompleteOldest();
    if (study.suggested() < options.budget) {
      HPTUNE_RETURN_IF_ERROR(study.SuggestRound(1));
    }
  }
  return study.TakeTrials();
}

absl::StatusOr<std::vector<double>> RunDesigner(
    const TestFunction& function, const DesignerRunOptions& options) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<RunTrial> trials,
                          RunDesignerTrials(function, options));
  std::vector<double> values;
  values.reserve(trials.size());
  for (const RunTrial& t : trials) values.push_back(t.value);
  return values;
}

double ObservationNoise(uint64_t seed, int number) {
  algorithms::SplitMix64 rng(seed ^ kObservationNoiseSalt,
                             2 * (static_cast<uint64_t>(number) - 1));
  return algorithms::gp::NextStandardNormal(rng);
}

double SimpleRegret(std::span<const RunTrial> trials, int budget,
                    double optimum) {
  if (budget < 1 || static_cast<size_t>(budget) > trials.size()) {
    std::fprintf(stderr,
                 "quality: broken invariant: SimpleRegret at budget %d of %zu "
                 "trials\n",
                 budget, trials.size());
    std::abort();
  }
  const auto best = std::min_element(trials.begin(), trials.begin() + budget,
                                     [](const RunTrial& a, const RunTrial& b) {
                                       return a.reported < b.reported;
                                     });
  return best->value - optimum;
}

}  // namespace hptune::quality
