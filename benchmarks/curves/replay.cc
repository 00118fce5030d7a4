#include "benchmarks/curves/replay.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <random>

#include "absl/strings/str_cat.h"
#include "hptune/core/trial_resume.h"
#include "hptune/engine/engine.h"
#include "hptune/env/clock.h"
#include "hptune/store/open_store.h"

namespace hptune::curves {
namespace {

constexpr char kStudy[] = "replay";

// A worker training one trial: its configuration, the seed whose curve it
// trains (0 without seed curves) and the next step.
struct Slot {
  int64_t trial = 0;
  int config = 0;
  int seed = 0;
  int step = 0;
  bool continuation = false;
};

// When a worker's current step ends; the earliest first, ties by worker.
struct Event {
  double time;
  int worker;
  bool operator>(const Event& o) const {
    return time != o.time ? time > o.time : worker > o.worker;
  }
};

class Simulation {
 public:
  Simulation(const CurveTable& table, const ReplayOptions& options)
      : table_(table),
        options_(options),
        store_(store::NewMemoryStore(clock_)),
        engine_(*store_, clock_),
        slots_(options.workers),
        budget_steps_(options.budget * table.steps),
        best_(std::numeric_limits<double>::infinity()),
        reference_(options.seeds ? options.seeds->BestMeanFinal()
                                 : table.BestValue()),
        seed_draws_(options.seed * 0x9E3779B97F4A7C15ULL + 1) {
    result_.regret_at.assign(options.checkpoints.size(), std::nan(""));
  }

  absl::StatusOr<ReplayResult> Run();

 private:
  absl::Status CreateStudy();
  // Hands worker `w` a new trial starting at `now`; false when none came.
  absl::StatusOr<bool> StartTrial(int w, double now);
  // The end of worker `w`'s current step at `now`.
  absl::Status StepDone(int w, double now);
  absl::Status EndTrial(const Slot& slot, bool stopped);
  void NoteSpend();
  void Schedule(int w, double now) {
    const Slot& s = slots_[w];
    events_.push({now + Cost(s), w});
  }
  // The metric and cost of slot `s`'s next step, on its seed's curve.
  double Metric(const Slot& s) const {
    return options_.seeds ? options_.seeds->metric[s.config][s.seed][s.step]
                          : table_.metric[s.config][s.step];
  }
  double Cost(const Slot& s) const {
    return options_.seeds ? options_.seeds->cost[s.config][s.seed][s.step]
                          : table_.cost[s.config][s.step];
  }
  // The seed a trial trains: drawn for a new one, its trial's for a
  // continuation.
  int SeedOf(const Trial& trial, std::optional<int64_t> resumed);
  double Regret() const {
    if (!options_.seeds) return best_ - reference_;
    if (best_config_ < 0) return std::numeric_limits<double>::infinity();
    return options_.seeds->MeanFinal(best_config_) - reference_;
  }

  const CurveTable& table_;
  const ReplayOptions& options_;
  FakeClock clock_;
  std::unique_ptr<store::Store> store_;
  engine::TuningEngine engine_;
  std::vector<Slot> slots_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  const double budget_steps_;
  double best_;
  int best_config_ = -1;  // The configuration of the best result.
  const double reference_;
  std::mt19937_64 seed_draws_;
  std::map<int64_t, int> trial_seeds_;
  double now_ = 0;
  ReplayResult result_;
};

absl::Status Simulation::CreateStudy() {
  StudySpec spec;
  spec.search_space = table_.space;
  spec.SetSingleMetric(table_.metric_name, Goal::kMinimize);
  // Every trial trains at least one step, so the budget bounds the trials.
  spec.max_trials = options_.max_trials > 0
                        ? options_.max_trials
                        : static_cast<int>(std::ceil(budget_steps_)) + 1;
  spec.max_parallel_trials = options_.workers;
  spec.enable_early_stopping = options_.rule.has_value();
  // The study's own rule too: the engine resumes trials by it.
  if (options_.rule) spec.early_stopping_rule = *options_.rule;
  spec.algorithm = options_.algorithm;
  spec.seed = options_.seed;
  return engine_.CreateStudy(kStudy, spec).status();
}

absl::StatusOr<bool> Simulation::StartTrial(int w, double now) {
  auto response = engine_.SuggestTrials(kStudy, 1, absl::StrCat("w", w));
  if (!response.ok()) return response.status();
  if (response->trials.empty()) return false;
  const Trial& trial = response->trials.front();
  auto config = NearestConfiguration(table_, trial.parameters);
  if (!config.ok()) return config.status();
  int step = 0;
  const std::optional<int64_t> resumed = ResumedTrial(trial);
  if (resumed) {
    ++result_.resumed;
    --result_.stopped;  // Its trial's training goes on.
    // Freeze-thaw: it goes on from the step the resumed trial stopped at.
    auto stopped = engine_.GetTrial(kStudy, *resumed);
    if (!stopped.ok()) return stopped.status();
    if (!stopped->measurements.empty()) {
      step = static_cast<int>(stopped->measurements.back().step);
    }
  }
  slots_[w] = Slot{trial.number, *config, SeedOf(trial, resumed), step,
                   resumed.has_value()};
  Schedule(w, now);
  return true;
}

int Simulation::SeedOf(const Trial& trial, std::optional<int64_t> resumed) {
  if (!options_.seeds) return 0;
  auto it = resumed ? trial_seeds_.find(*resumed) : trial_seeds_.end();
  const int seed =
      it != trial_seeds_.end()
          ? it->second
          : static_cast<int>(seed_draws_() % options_.seeds->seeds);
  trial_seeds_[trial.number] = seed;
  return seed;
}

absl::Status Simulation::EndTrial(const Slot& slot, bool stopped) {
  if (stopped) {
    auto t = engine_.StopTrial(kStudy, slot.trial, "replay: the rule said so");
    if (!t.ok()) return t.status();
  }
  auto t = engine_.CompleteTrial(kStudy, slot.trial, std::nullopt);
  if (!t.ok()) return t.status();
  result_.trials += !slot.continuation;
  result_.stopped += stopped;
  if (auto v = t->FinalObjective(table_.metric_name); v && *v < best_) {
    best_ = *v;
    best_config_ = slot.config;
  }
  return absl::OkStatus();
}

void Simulation::NoteSpend() {
  for (size_t i = 0; i < options_.checkpoints.size(); ++i) {
    if (result_.steps == static_cast<int64_t>(std::ceil(
                             options_.checkpoints[i] * table_.steps))) {
      result_.regret_at[i] = Regret();
    }
  }
}

absl::Status Simulation::StepDone(int w, double now) {
  Slot& slot = slots_[w];
  clock_.Advance(
      std::chrono::microseconds(static_cast<int64_t>((now - now_) * 1e6)));
  now_ = now;
  Measurement m;
  m.step = slot.step + 1;  // Steps 1..S: the median rules never judge step 0.
  m.metrics[table_.metric_name] = Metric(slot);
  if (auto s = engine_.AddMeasurement(kStudy, slot.trial, m); !s.ok()) return s;
  ++result_.steps;
  ++slot.step;
  bool stop = false;
  if (slot.step < table_.steps && options_.rule) {
    auto decisions =
        engine_.CheckEarlyStopping(kStudy, *options_.rule, {slot.trial});
    if (!decisions.ok()) return decisions.status();
    for (const auto& d : *decisions) stop |= d.trial == slot.trial && d.stop;
  }
  if (slot.step == table_.steps || stop) {
    if (auto s = EndTrial(slot, stop); !s.ok()) return s;
    NoteSpend();
    return StartTrial(w, now).status();
  }
  NoteSpend();
  Schedule(w, now);
  return absl::OkStatus();
}

absl::StatusOr<ReplayResult> Simulation::Run() {
  if (auto s = CreateStudy(); !s.ok()) return s;
  for (int w = 0; w < options_.workers; ++w) {
    if (auto started = StartTrial(w, 0); !started.ok()) return started.status();
  }
  while (!events_.empty() && result_.steps < budget_steps_) {
    const Event e = events_.top();
    events_.pop();
    if (auto s = StepDone(e.worker, e.time); !s.ok()) return s;
  }
  result_.sim_seconds = now_;
  result_.final_regret = Regret();
  // Ended before the budget (max_trials): later checkpoints see the end.
  for (size_t i = 0; i < options_.checkpoints.size(); ++i) {
    if (options_.checkpoints[i] * table_.steps > result_.steps) {
      result_.regret_at[i] = result_.final_regret;
    }
  }
  return result_;
}

}  // namespace

absl::StatusOr<ReplayResult> Replay(const CurveTable& table,
                                    const ReplayOptions& options) {
  if (options.workers < 1 || options.budget <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("workers ", options.workers, " and budget ",
                     options.budget, " must be positive"));
  }
  if (options.seeds && options.seeds->metric.size() != table.configs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("seed curves of ", options.seeds->metric.size(),
                     " configurations for a table of ", table.configs.size()));
  }
  Simulation simulation(table, options);
  return simulation.Run();
}

}  // namespace hptune::curves
