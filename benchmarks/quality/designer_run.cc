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
  SimulatedStudy(const StudySpec& spec, std::string_view label, uint64_t seed,
                 const DesignerFactory& factory, const TrialEvaluator& evaluate)
      : spec_(spec),
        label_(label),
        seed_(seed),
        factory_(factory ? factory : algorithms::CreateDesigner),
        evaluate_(evaluate) {}

  int suggested() const { return suggested_; }
  bool has_pending() const { return !pending_.empty(); }

  // One SuggestTrials round: the new trials join the pending ones. Errors
  // say which designer, study, seed and round.
  absl::Status SuggestRound(int count) {
    absl::Status s = TrySuggestRound(count);
    if (s.ok()) return s;
    return absl::Status(s.code(),
                        absl::StrCat(Where(), ": ", std::string(s.message())));
  }

  // The oldest pending trial's worker reports its metrics.
  void CompleteOldest() {
    Trial t = std::move(pending_.front());
    pending_.pop_front();
    t.final_measurement = Measurement{.step = 1, .metrics = evaluate_(t)};
    t.state = TrialState::kSucceeded;
    completed_.push_back(std::move(t));
  }

  std::vector<Trial> TakeTrials() {
    std::vector<Trial> trials = std::move(completed_);
    std::sort(trials.begin(), trials.end(), [](const Trial& a, const Trial& b) {
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
      t.number = ++suggested_;
      t.parameters = std::move(s.parameters);
      t.origin = std::move(s.origin);
      t.state = TrialState::kActive;
      pending_.push_back(std::move(t));
    }
    designer_state_ = designer->SaveState();
    return absl::OkStatus();
  }

  std::string Where() const {
    return absl::StrCat(std::string(ToString(spec_.algorithm)), " on ", label_,
                        " (seed ", seed_, ") after ", suggested(), " trials");
  }

  const StudySpec& spec_;
  std::string label_;
  uint64_t seed_ = 0;
  DesignerFactory factory_;
  const TrialEvaluator& evaluate_;
  std::string designer_state_;
  std::vector<Trial> completed_;
  std::deque<Trial> pending_;
  int suggested_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<Trial>> RunStudy(const StudySpec& spec,
                                            std::string_view label,
                                            uint64_t seed, int budget,
                                            int workers,
                                            const DesignerFactory& factory,
                                            const TrialEvaluator& evaluate) {
  if (budget < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("budget must be at least 1, got ", budget));
  }
  if (workers < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("workers must be at least 1, got ", workers));
  }
  SimulatedStudy study(spec, label, seed, factory, evaluate);
  HPTUNE_RETURN_IF_ERROR(study.SuggestRound(std::min(workers, budget)));
  while (study.has_pending()) {
    study.CompleteOldest();
    if (study.suggested() < budget) {
      HPTUNE_RETURN_IF_ERROR(study.SuggestRound(1));
    }
  }
  return study.TakeTrials();
}

absl::StatusOr<std::vector<RunTrial>> RunDesignerTrials(
    const TestFunction& function, const DesignerRunOptions& options) {
  StudySpec spec;
  spec.search_space = function.space;
  spec.SetSingleMetric(std::string(kObjectiveMetric), Goal::kMinimize);
  spec.max_trials = options.budget;
  spec.max_parallel_trials = options.workers;
  spec.algorithm = options.algorithm;
  spec.seed = options.seed;
  std::vector<std::pair<double, double>> values;  // By trial number - 1.
  const TrialEvaluator evaluate = [&](const Trial& t) {
    const double value = function.evaluate(t.parameters);
    const double reported =
        function.noise_sd > 0
            ? value +
                  function.noise_sd *
                      ObservationNoise(options.seed, static_cast<int>(t.number))
            : value;
    values.resize(std::max<size_t>(values.size(), t.number));
    values[t.number - 1] = {value, reported};
    return std::map<std::string, double>{
        {std::string(kObjectiveMetric), reported}};
  };
  HPTUNE_ASSIGN_OR_RETURN(
      std::vector<Trial> trials,
      RunStudy(spec, function.name, options.seed, options.budget,
               options.workers, options.factory, evaluate));
  std::vector<RunTrial> out;
  out.reserve(trials.size());
  for (Trial& t : trials) {
    out.push_back({.number = static_cast<int>(t.number),
                   .origin = std::move(t.origin),
                   .parameters = std::move(t.parameters),
                   .value = values[t.number - 1].first,
                   .reported = values[t.number - 1].second});
  }
  return out;
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
