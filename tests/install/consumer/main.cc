// A scheduler that embeds the installed library: a grid study on hptune's own
// designer, then a study on a designer of its own registered through
// EngineOptions, on a SQLite file, resumed by a second engine after the
// first is gone, and an early-stopping rule of its own registered by name.
// Exits non-zero, saying why, when any step misbehaves.
//
// Usage: consumer DB_FILE
#include <cstdint>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/algorithms/designer.h"
#include "hptune/algorithms/registry.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/algorithms/stopping_registry.h"
#include "hptune/engine/engine.h"
#include "hptune/store/open_store.h"

namespace {

bool Fail(std::string_view what) {
  std::cerr << "consumer: " << what << "\n";
  return false;
}

// The scheduler's own search: "units" from its maximum down, one step per
// suggestion. Its cursor is state beyond the trial history, saved by the
// engine with each batch of trials, so a new process continues the scan.
class CountdownDesigner : public hptune::algorithms::Designer {
 public:
  explicit CountdownDesigner(int64_t start) : next_(start) {}

  absl::Status Update(const std::vector<hptune::Trial>&,
                      const std::vector<hptune::Trial>&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<hptune::algorithms::Suggestion>> Suggest(
      int count) override {
    std::vector<hptune::algorithms::Suggestion> out;
    for (; count > 0 && next_ >= 1; --count, --next_) {
      out.push_back(
          {.parameters = {{"units", hptune::ParameterValue::Integer(next_)}},
           .origin = "countdown:" + std::to_string(next_)});
    }
    return out;
  }
  std::string SaveState() const override { return std::to_string(next_); }
  absl::Status RestoreState(std::string_view state) override {
    if (!state.empty()) next_ = std::stoll(std::string(state));
    return absl::OkStatus();
  }

 private:
  int64_t next_;
};

hptune::engine::EngineOptions WithCountdown() {
  hptune::engine::EngineOptions options;
  auto registered = options.designers.Register(
      "countdown", [](const hptune::Problem& problem,
                      const hptune::algorithms::DesignerOptions&, uint64_t) {
        return absl::StatusOr<std::unique_ptr<hptune::algorithms::Designer>>(
            std::make_unique<CountdownDesigner>(static_cast<int64_t>(
                problem.search_space.parameters().front().max_value)));
      });
  if (!registered.ok()) std::cerr << registered << "\n";
  return options;
}

// Asks for one trial at a time and reports `loss(trial)` until the study
// completes or `limit` trials ran; returns how many ran.
template <typename Loss>
int RunTrials(hptune::engine::TuningEngine& engine, const std::string& study,
              int limit, Loss loss) {
  int ran = 0;
  while (ran < limit) {
    auto response = engine.SuggestTrials(study, 1, "consumer");
    if (!response.ok() || response->trials.empty()) break;
    const hptune::Trial& t = response->trials.front();
    auto done = engine.CompleteTrial(
        study, t.number,
        hptune::Measurement{.step = 1, .metrics = {{"loss", loss(t)}}});
    if (!done.ok()) return Fail(done.status().ToString()), -1;
    ++ran;
  }
  return ran;
}

bool GridStudy(hptune::store::Store& store) {
  hptune::engine::TuningEngine engine(store, hptune::SystemClock());
  hptune::StudySpec spec;
  spec.search_space =
      hptune::SearchSpace({{.name = "units",
                            .type = hptune::ParameterType::kInteger,
                            .min_value = 1,
                            .max_value = 2},
                           {.name = "cell",
                            .type = hptune::ParameterType::kCategorical,
                            .categorical_values = {"gru", "lstm", "rnn"}}});
  spec.SetSingleMetric("loss", hptune::Goal::kMinimize);
  spec.max_trials = 100;
  spec.algorithm = hptune::Algorithm::kGridSearch;
  if (auto s = engine.CreateStudy("grid", spec); !s.ok()) {
    return Fail(s.status().ToString());
  }
  int trials = RunTrials(engine, "grid", 100, [](const hptune::Trial& t) {
    return t.parameters.at("units").AsDouble() +
           (t.parameters.at("cell").AsString() == "lstm" ? 0 : 1);
  });
  auto best = engine.BestTrial("grid");
  if (trials != 6 || !best.ok() || !*best ||
      (*best)->parameters.at("cell").AsString() != "lstm") {
    return Fail("grid study: unexpected result after " +
                std::to_string(trials) + " trials");
  }
  std::cout << "grid study: " << trials << " trials\n";
  return true;
}

hptune::StudySpec CountdownSpec() {
  hptune::StudySpec spec;
  spec.search_space =
      hptune::SearchSpace({{.name = "units",
                            .type = hptune::ParameterType::kInteger,
                            .min_value = 1,
                            .max_value = 8}});
  spec.SetSingleMetric("loss", hptune::Goal::kMinimize);
  spec.max_trials = 6;
  spec.custom_algorithm = "countdown";
  return spec;
}

double CountdownLoss(const hptune::Trial& t) {
  double units = t.parameters.at("units").AsDouble();
  return (units - 4) * (units - 4);
}

bool UserDesignerStudy(const std::string& db) {
  {
    // An engine without the registration refuses the study by name.
    auto store = hptune::store::OpenSqliteStore(db, hptune::SystemClock());
    if (!store.ok()) return Fail(store.status().ToString());
    hptune::engine::TuningEngine plain(**store, hptune::SystemClock());
    auto refused = plain.CreateStudy("scan", CountdownSpec());
    if (refused.ok() ||
        refused.status().message().find("countdown") == std::string::npos) {
      return Fail("an engine without the countdown designer took the study");
    }
  }
  {
    auto store = hptune::store::OpenSqliteStore(db, hptune::SystemClock());
    if (!store.ok()) return Fail(store.status().ToString());
    hptune::engine::TuningEngine engine(**store, WithCountdown(),
                                        hptune::SystemClock());
    if (auto s = engine.CreateStudy("scan", CountdownSpec()); !s.ok()) {
      return Fail(s.status().ToString());
    }
    if (RunTrials(engine, "scan", 3, CountdownLoss) != 3) {
      return Fail("first engine ran fewer than 3 trials");
    }
  }
  // A new store and engine on the same file: the designer's saved cursor
  // continues the scan at 5, and the budget of 6 trials ends it at 3.
  auto store = hptune::store::OpenSqliteStore(db, hptune::SystemClock());
  if (!store.ok()) return Fail(store.status().ToString());
  hptune::engine::TuningEngine engine(**store, WithCountdown(),
                                      hptune::SystemClock());
  if (RunTrials(engine, "scan", 100, CountdownLoss) != 3) {
    return Fail("second engine did not run the 3 remaining trials");
  }
  auto trials = engine.ListTrials("scan");
  if (!trials.ok()) return Fail(trials.status().ToString());
  std::string origins;
  for (const hptune::Trial& t : *trials) origins += t.origin + " ";
  if (origins !=
      "countdown:8 countdown:7 countdown:6 countdown:5 countdown:4 "
      "countdown:3 ") {
    return Fail("user designer's trials: " + origins);
  }
  auto best = engine.BestTrial("scan");
  if (!best.ok() || !*best || (*best)->parameters.at("units").AsDouble() != 4) {
    return Fail("user designer's study: best trial is not units=4");
  }
  std::cout << "user designer study: " << origins << "\n";
  return true;
}

// The scheduler's own stopping rule: stop a trial whose latest loss is above
// 1, whatever the others did.
class LossCapPolicy : public hptune::algorithms::CurveStoppingPolicy {
 public:
  absl::StatusOr<std::vector<hptune::algorithms::StoppingDecision>>
  DecideOnCurves(
      const hptune::Problem&,
      std::span<const hptune::algorithms::TrialCurve> trials) override {
    std::vector<hptune::algorithms::StoppingDecision> decisions;
    for (const auto& t : trials) {
      if (t.state != hptune::TrialState::kActive) continue;
      const bool stop = !t.curve->empty() && t.curve->points().back().value > 1;
      decisions.push_back({.trial = t.curve->trial(),
                           .stop = stop,
                           .reason = stop ? "loss over 1" : ""});
    }
    return decisions;
  }
};

bool UserStoppingRule(hptune::store::Store& store) {
  hptune::engine::EngineOptions options;
  auto registered = options.stopping_rules.Register("loss-cap", [] {
    return absl::StatusOr<std::unique_ptr<hptune::algorithms::StoppingPolicy>>(
        std::make_unique<LossCapPolicy>());
  });
  if (!registered.ok()) return Fail(registered.ToString());
  hptune::engine::TuningEngine engine(store, std::move(options),
                                      hptune::SystemClock());
  hptune::StudySpec spec = CountdownSpec();
  spec.custom_algorithm.clear();
  spec.algorithm = hptune::Algorithm::kGridSearch;
  spec.max_parallel_trials = 2;
  if (auto s = engine.CreateStudy("capped", spec); !s.ok()) {
    return Fail(s.status().ToString());
  }
  auto response = engine.SuggestTrials("capped", 2, "consumer");
  if (!response.ok()) return Fail(response.status().ToString());
  if (response->trials.size() != 2) {
    return Fail("capped study: " + std::to_string(response->trials.size()) +
                " trials, not 2: " + response->note);
  }
  for (const hptune::Trial& t : response->trials) {
    auto added = engine.AddMeasurement(
        "capped", t.number,
        hptune::Measurement{.step = 1,
                            .metrics = {{"loss", CountdownLoss(t)}}});
    if (!added.ok()) return Fail(added.ToString());
  }
  auto decisions = engine.CheckEarlyStopping("capped", "loss-cap");
  if (!decisions.ok()) return Fail(decisions.status().ToString());
  std::string stopped;
  for (const auto& d : *decisions) {
    if (d.stop) stopped += std::to_string(d.trial) + " ";
  }
  // Grid trials units=1 (loss 9) and units=2 (loss 4): both over the cap.
  if (stopped != "1 2 ") return Fail("user stopping rule stopped: " + stopped);
  std::cout << "user stopping rule: stopped " << stopped << "\n";
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return Fail("usage: consumer DB_FILE"), 64;
  auto memory = hptune::store::NewMemoryStore(hptune::SystemClock());
  if (!GridStudy(*memory) || !UserDesignerStudy(argv[1]) ||
      !UserStoppingRule(*memory)) {
    return 1;
  }
  std::cout << "consumer ok\n";
  return 0;
}
