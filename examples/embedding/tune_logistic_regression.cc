// Embedding hptune in your own program: tune a small logistic-regression
// trainer with the ask/tell API, keeping the study in a SQLite file.
//
//   tune_logistic_regression STUDY_DB [STUDY_NAME]
//
// The trainer is real (mini-batch gradient descent on a synthetic, seeded
// two-class data set) and reports validation accuracy after every epoch, so
// the study records learning curves as well as final results. Run it again on
// the same file and it continues the study where it stopped.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "hptune/engine/engine.h"
#include "hptune/store/open_store.h"

namespace {

constexpr int kFeatures = 8;

struct Example {
  double x[kFeatures];
  int label;
};

// Two overlapping Gaussian classes; the same data for every trial.
std::vector<Example> MakeData(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<Example> data(n);
  for (int i = 0; i < n; ++i) {
    data[i].label = i % 2;
    for (int f = 0; f < kFeatures; ++f) {
      double shift = data[i].label ? 0.35 * (f + 1) / kFeatures : 0.0;
      data[i].x[f] = noise(rng) + shift + (f == 0 ? data[i].label * 0.5 : 0.0);
    }
  }
  return data;
}

double Accuracy(const std::vector<double>& w, const std::vector<Example>& d) {
  int correct = 0;
  for (const Example& e : d) {
    double z = w[kFeatures];
    for (int f = 0; f < kFeatures; ++f) z += w[f] * e.x[f];
    correct += (z > 0) == (e.label == 1);
  }
  return static_cast<double>(correct) / d.size();
}

// Trains with the trial's hyperparameters, telling hptune the validation
// accuracy after every epoch.
absl::Status Train(hptune::engine::TuningEngine& engine,
                   const std::string& study, const hptune::Trial& trial,
                   const std::vector<Example>& train,
                   const std::vector<Example>& validation) {
  const auto& p = trial.parameters;
  double lr = p.at("learning_rate").AsDouble();
  double l2 = p.at("l2").AsDouble();
  int64_t epochs = p.at("epochs").AsInteger();
  int batch = static_cast<int>(p.at("batch_size").AsDouble());
  bool momentum = p.at("optimizer").AsString() == "momentum";

  std::vector<double> w(kFeatures + 1, 0.0), velocity(kFeatures + 1, 0.0);
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    for (size_t start = 0; start < train.size(); start += batch) {
      std::vector<double> grad(kFeatures + 1, 0.0);
      size_t end = std::min(train.size(), start + batch);
      for (size_t i = start; i < end; ++i) {
        const Example& e = train[i];
        double z = w[kFeatures];
        for (int f = 0; f < kFeatures; ++f) z += w[f] * e.x[f];
        double error = 1.0 / (1.0 + std::exp(-z)) - e.label;
        for (int f = 0; f < kFeatures; ++f) grad[f] += error * e.x[f];
        grad[kFeatures] += error;
      }
      for (int f = 0; f <= kFeatures; ++f) {
        double g = grad[f] / (end - start) + (f < kFeatures ? l2 * w[f] : 0);
        velocity[f] = (momentum ? 0.9 * velocity[f] : 0.0) + g;
        w[f] -= lr * velocity[f];
      }
    }
    hptune::Measurement m{.step = epoch,
                          .metrics = {{"accuracy", Accuracy(w, validation)}}};
    if (auto s = engine.AddMeasurement(study, trial.number, m); !s.ok()) {
      return s;
    }
  }
  return engine.CompleteTrial(study, trial.number, std::nullopt).status();
}

hptune::StudySpec MakeSpec() {
  using hptune::ParameterType;
  using hptune::ScaleType;
  hptune::StudySpec spec;
  spec.search_space = hptune::SearchSpace({
      {.name = "learning_rate",
       .type = ParameterType::kDouble,
       .min_value = 1e-3,
       .max_value = 3.0,
       .scale = ScaleType::kLog},
      {.name = "l2",
       .type = ParameterType::kDouble,
       .min_value = 1e-6,
       .max_value = 1e-1,
       .scale = ScaleType::kLog},
      {.name = "epochs",
       .type = ParameterType::kInteger,
       .min_value = 1,
       .max_value = 20,
       .scale = ScaleType::kLinear},
      {.name = "batch_size",
       .type = ParameterType::kDiscrete,
       .discrete_values = {8, 16, 32, 64}},
      {.name = "optimizer",
       .type = ParameterType::kCategorical,
       .categorical_values = {"sgd", "momentum"}},
  });
  spec.SetSingleMetric("accuracy", hptune::Goal::kMaximize);
  spec.max_trials = 24;
  spec.max_parallel_trials = 4;
  spec.algorithm = hptune::Algorithm::kRandomSearch;
  spec.seed = 20261121;
  return spec;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: " << argv[0] << " STUDY_DB [STUDY_NAME]\n";
    return 64;
  }
  std::string study = argc == 3 ? argv[2] : "logistic_regression";
  auto store = hptune::store::OpenSqliteStore(argv[1], hptune::SystemClock());
  if (!store.ok()) {
    std::cerr << store.status().message() << "\n";
    return 1;
  }
  hptune::engine::TuningEngine engine(**store, hptune::SystemClock());
  if (auto s = engine.OpenOrCreateStudy(study, MakeSpec()); !s.ok()) {
    std::cerr << s.status().message() << "\n";
    return 1;
  }
  std::vector<Example> data = MakeData(1200, 7);
  std::vector<Example> train(data.begin(), data.begin() + 900);
  std::vector<Example> validation(data.begin() + 900, data.end());

  // Ask for a batch of trials as a scheduler with 4 slots would, run them,
  // tell the results, and repeat until the study is done.
  while (true) {
    auto batch = engine.SuggestTrials(study, 4, "example-scheduler");
    if (!batch.ok()) {
      std::cerr << batch.status().message() << "\n";
      return 1;
    }
    if (batch->trials.empty()) break;
    for (const hptune::Trial& trial : batch->trials) {
      if (auto s = Train(engine, study, trial, train, validation); !s.ok()) {
        std::cerr << "trial " << trial.number << ": " << s.message() << "\n";
        return 1;
      }
      auto done = engine.GetTrial(study, trial.number);
      std::printf("trial %3lld  accuracy %.4f  after %lld epochs\n",
                  static_cast<long long>(trial.number),
                  *done->FinalObjective("accuracy"),
                  static_cast<long long>(done->final_measurement->step));
    }
  }
  auto best = engine.BestTrial(study);
  if (best.ok() && *best) {
    std::printf("best: trial %lld, accuracy %.4f\n",
                static_cast<long long>((*best)->number),
                *(*best)->FinalObjective("accuracy"));
  }
  return 0;
}
