// Runs a whole grid study through the installed library and checks it.
#include <iostream>

#include "hptune/engine/engine.h"
#include "hptune/store/memory_store.h"

int main() {
  hptune::store::MemoryStore store;
  hptune::engine::TuningEngine engine(store);
  hptune::StudySpec spec;
  spec.search_space =
      hptune::SearchSpace({{.name = "units",
                            .type = hptune::ParameterType::kInteger,
                            .min_value = 1,
                            .max_value = 2},
                           {.name = "cell",
                            .type = hptune::ParameterType::kCategorical,
                            .categorical_values = {"gru", "lstm", "rnn"}}});
  spec.goal = hptune::Goal::kMinimize;
  spec.metric_tag = "loss";
  spec.max_trials = 100;
  spec.algorithm = hptune::Algorithm::kGridSearch;
  if (auto s = engine.CreateStudy("consumer", spec); !s.ok()) {
    std::cerr << s.status() << "\n";
    return 1;
  }
  int trials = 0;
  while (true) {
    auto response = engine.SuggestTrials("consumer", 1, "consumer");
    if (!response.ok() || response->trials.empty()) break;
    const hptune::Trial& t = response->trials.front();
    double loss = t.parameters.at("units").AsDouble() +
                  (t.parameters.at("cell").AsString() == "lstm" ? 0 : 1);
    auto done = engine.CompleteTrial(
        "consumer", t.number,
        hptune::Measurement{.step = 1, .metrics = {{"loss", loss}}});
    if (!done.ok()) return 1;
    ++trials;
  }
  auto best = engine.BestTrial("consumer");
  if (trials != 6 || !best.ok() || !*best ||
      (*best)->parameters.at("cell").AsString() != "lstm") {
    std::cerr << "consumer: unexpected result after " << trials << " trials\n";
    return 1;
  }
  std::cout << "consumer ok: " << trials << " trials, best trial "
            << (*best)->number << "\n";
  return 0;
}
