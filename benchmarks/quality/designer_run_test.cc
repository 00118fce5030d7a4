#include "benchmarks/quality/designer_run.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune::quality {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One call of the engine protocol as a designer sees it.
struct Round {
  std::string restored;  // What RestoreState got.
  int completed = 0;
  int pending = 0;
  int count = 0;  // What Suggest asked for.
  bool operator==(const Round&) const = default;
};

// What the fake designers saw, shared by every round's instance.
struct Log {
  std::vector<Round> rounds;
  // Each completed trial's reported value, checked against what the
  // function returned for its parameters (plus its noise).
  std::vector<std::string> problems;
  double noise_sd = 0;  // The function's.
};

// 1-D x in [0, 1]; f(x) = x.
TestFunction Identity() {
  // Designated initialisers: g++ 12 under the sanitizers flags a string
  // member assigned from a literal (-Wrestrict, a false positive).
  ParameterSpec x{.name = "x",
                  .type = ParameterType::kDouble,
                  .min_value = 0,
                  .max_value = 1};
  return TestFunction{.name = "identity",
                      .space = SearchSpace({x}),
                      .optimum = 0,
                      .evaluate = [](const ParameterAssignment& a) {
                        return a.at("x").AsDouble();
                      }};
}

// Suggests x = 1 / (k + 1) for its k-th point (k carried in its state), so
// values come out decreasing; `shortfall` points fewer than asked and, with
// `infeasible`, an x outside [0, 1].
class FakeDesigner : public algorithms::Designer {
 public:
  FakeDesigner(Log& log, uint64_t seed, int shortfall, bool infeasible)
      : log_(log),
        seed_(seed),
        shortfall_(shortfall),
        infeasible_(infeasible) {}

  absl::Status Update(const std::vector<Trial>& completed,
                      const std::vector<Trial>& active) override {
    round_.completed = static_cast<int>(completed.size());
    round_.pending = static_cast<int>(active.size());
    for (const Trial& t : completed) {
      const double x = t.parameters.at("x").AsDouble();
      const double noise =
          log_.noise_sd * ObservationNoise(seed_, static_cast<int>(t.number));
      if (t.state != TrialState::kSucceeded ||
          t.FinalObjective("objective") != x + noise) {
        log_.problems.push_back(absl::StrCat("trial ", t.number));
      }
    }
    for (const Trial& t : active) {
      if (t.state != TrialState::kActive || t.final_measurement) {
        log_.problems.push_back(absl::StrCat("pending trial ", t.number));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<algorithms::Suggestion>> Suggest(
      int count) override {
    round_.count = count;
    log_.rounds.push_back(round_);
    std::vector<algorithms::Suggestion> out;
    for (int i = 0; i < count - shortfall_; ++i, ++next_) {
      const double x = infeasible_ ? 2.0 : 1.0 / (next_ + 1);
      out.push_back({{{"x", ParameterValue::Double(x)}}, "fake"});
    }
    return out;
  }

  std::string SaveState() const override { return absl::StrCat(next_); }
  absl::Status RestoreState(std::string_view state) override {
    round_.restored = std::string(state);
    next_ = state.empty() ? 0 : std::stoi(std::string(state));
    return absl::OkStatus();
  }

 private:
  Log& log_;
  const uint64_t seed_;
  const int shortfall_;
  const bool infeasible_;
  Round round_;
  int next_ = 0;
};

DesignerRunOptions FakeRun(Log& log, int budget, int workers, int shortfall = 0,
                           bool infeasible = false) {
  return {
      .budget = budget,
      .workers = workers,
      .factory = [&log, shortfall, infeasible](const StudySpec& spec,
                                               uint64_t seed) {
        EXPECT_EQ(spec.goal(), Goal::kMinimize);
        return absl::StatusOr<std::unique_ptr<algorithms::Designer>>(
            std::make_unique<FakeDesigner>(log, seed, shortfall, infeasible));
      }};
}

TEST(RunDesignerTest, SequentialAsksForOnePointAtATimeWithNothingPending) {
  Log log;
  auto values = RunDesigner(Identity(), FakeRun(log, 4, 1));
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ElementsAre(1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4));
  EXPECT_THAT(log.rounds,
              ElementsAre(Round{"", 0, 0, 1}, Round{"1", 1, 0, 1},
                          Round{"2", 2, 0, 1}, Round{"3", 3, 0, 1}));
  EXPECT_THAT(log.problems, ElementsAre());
}

TEST(RunDesignerTest, ParallelKeepsFourPendingAndCompletesTheOldestFirst) {
  Log log;
  auto values = RunDesigner(Identity(), FakeRun(log, 7, 4));
  ASSERT_TRUE(values.ok()) << values.status();
  // Values by suggestion order, whatever the completion order.
  EXPECT_THAT(*values, ElementsAre(1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5,
                                   1.0 / 6, 1.0 / 7));
  EXPECT_THAT(log.rounds,
              ElementsAre(Round{"", 0, 0, 4}, Round{"4", 1, 3, 1},
                          Round{"5", 2, 3, 1}, Round{"6", 3, 3, 1}));
  EXPECT_THAT(log.problems, ElementsAre());
}

TEST(RunDesignerTest, TrialsHaveTheirNumberOriginParametersAndValue) {
  Log log;
  auto trials = RunDesignerTrials(Identity(), FakeRun(log, 5, 4));
  ASSERT_TRUE(trials.ok()) << trials.status();
  ASSERT_EQ(trials->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const RunTrial& t = (*trials)[i];
    EXPECT_EQ(t.number, i + 1);
    EXPECT_EQ(t.origin, "fake");
    EXPECT_EQ(t.parameters.at("x").AsDouble(), 1.0 / (i + 1));
    EXPECT_EQ(t.value, 1.0 / (i + 1));
  }
}

TEST(RunDesignerTest, NoisyFunctionsReportValuePlusTheSeedsNoise) {
  Log log;
  log.noise_sd = 0.5;
  TestFunction noisy = Identity();
  noisy.noise_sd = 0.5;
  DesignerRunOptions options = FakeRun(log, 6, 4);
  options.seed = 9;
  auto trials = RunDesignerTrials(noisy, options);
  ASSERT_TRUE(trials.ok()) << trials.status();
  for (const RunTrial& t : *trials) {
    EXPECT_EQ(t.value, 1.0 / t.number);
    EXPECT_EQ(t.reported, t.value + 0.5 * ObservationNoise(9, t.number));
    EXPECT_NE(t.reported, t.value);
  }
  EXPECT_THAT(log.problems, ElementsAre());  // The designer saw `reported`.
}

TEST(RunDesignerTest, BudgetBelowTheWorkersIsOneRound) {
  Log log;
  auto values = RunDesigner(Identity(), FakeRun(log, 2, 4));
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_EQ(values->size(), 2u);
  EXPECT_THAT(log.rounds, ElementsAre(Round{"", 0, 0, 2}));
}

TEST(RunDesignerTest, TooFewSuggestionsIsAnInternalErrorNamingTheRound) {
  Log log;
  auto values = RunDesigner(Identity(), FakeRun(log, 5, 4, /*shortfall=*/1));
  EXPECT_EQ(values.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(values.status().message(),
            "RANDOM_SEARCH on identity (seed 0) after 0 trials: asked for 4 "
            "suggestions, got 3");
}

TEST(RunDesignerTest, InfeasibleSuggestionIsAnInternalError) {
  Log log;
  auto values =
      RunDesigner(Identity(), FakeRun(log, 5, 1, 0, /*infeasible=*/true));
  EXPECT_EQ(values.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(values.status().message(),
              HasSubstr("after 0 trials: infeasible suggestion: "));
  EXPECT_THAT(values.status().message(), HasSubstr("\"x\""));
}

TEST(RunDesignerTest, BudgetAndWorkersMustBePositive) {
  auto no_budget = RunDesigner(Identity(), {.budget = 0});
  EXPECT_EQ(no_budget.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(no_budget.status().message(), "budget must be at least 1, got 0");
  auto no_workers = RunDesigner(Identity(), {.budget = 3, .workers = 0});
  EXPECT_EQ(no_workers.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(no_workers.status().message(), "workers must be at least 1, got 0");
}

// With the real designers: runs are reproducible, seeds matter, and a short
// run is the prefix of a long one (what lets the harness read every budget
// off one run).
TEST(RunDesignerTest, RealDesignersAreReproducibleAndShortRunsArePrefixes) {
  auto branin = FindTestFunction("branin");
  ASSERT_TRUE(branin.ok());
  for (Algorithm algorithm :
       {Algorithm::kRandomSearch, Algorithm::kQuasiRandomSearch}) {
    for (int workers : {1, 4}) {
      SCOPED_TRACE(
          absl::StrCat(std::string(ToString(algorithm)), " workers ", workers));
      DesignerRunOptions options{
          .algorithm = algorithm, .seed = 7, .budget = 12, .workers = workers};
      auto a = RunDesigner(**branin, options);
      auto b = RunDesigner(**branin, options);
      options.budget = 6;
      auto prefix = RunDesigner(**branin, options);
      options.seed = 8;
      auto other_seed = RunDesigner(**branin, options);
      ASSERT_TRUE(a.ok() && b.ok() && prefix.ok() && other_seed.ok());
      EXPECT_EQ(*a, *b);
      EXPECT_EQ(*prefix, std::vector<double>(a->begin(), a->begin() + 6));
      EXPECT_NE(*prefix, *other_seed);
    }
  }
}

std::vector<RunTrial> Trials(const std::vector<double>& values,
                             const std::vector<double>& reported) {
  std::vector<RunTrial> trials;
  for (size_t i = 0; i < values.size(); ++i) {
    trials.push_back({.number = static_cast<int>(i) + 1,
                      .value = values[i],
                      .reported = reported[i]});
  }
  return trials;
}

TEST(SimpleRegretTest, WithoutNoiseBestOfThePrefixMinusTheOptimum) {
  const std::vector<RunTrial> trials = Trials({5, 3, 4, 1}, {5, 3, 4, 1});
  EXPECT_EQ(SimpleRegret(trials, 1, 0.5), 4.5);
  EXPECT_EQ(SimpleRegret(trials, 3, 0.5), 2.5);
  EXPECT_EQ(SimpleRegret(trials, 4, 0.5), 0.5);
}

TEST(SimpleRegretTest, WithNoiseTheValueOfTheTrialReportedBest) {
  // Trial 3 reported best by luck; trial 2 is truly best but reported worse.
  const std::vector<RunTrial> trials = Trials({5, 1, 4, 2}, {5, 3, 0, 3});
  EXPECT_EQ(SimpleRegret(trials, 2, 0), 1);
  EXPECT_EQ(SimpleRegret(trials, 3, 0), 4);
  EXPECT_EQ(SimpleRegret(trials, 4, 0), 4);
  // A tie goes to the earlier trial.
  EXPECT_EQ(SimpleRegret(Trials({2, 1}, {3, 3}), 2, 0), 2);
}

// benchmarks/optuna_compare.py --check pins the same draws.
TEST(ObservationNoiseTest, IsAFunctionOfSeedAndTrialWithUnitVariance) {
  EXPECT_EQ(ObservationNoise(1, 1), ObservationNoise(1, 1));
  EXPECT_NE(ObservationNoise(1, 1), ObservationNoise(1, 2));
  EXPECT_NE(ObservationNoise(1, 1), ObservationNoise(2, 1));
  EXPECT_NEAR(ObservationNoise(1, 1), -1.507787093336201, 1e-14);
  EXPECT_NEAR(ObservationNoise(1, 2), 0.4618839759392781, 1e-14);
  EXPECT_NEAR(ObservationNoise(7, 100), 1.0000023977454744, 1e-14);
  double sum = 0, squares = 0;
  const int n = 20000;
  for (int i = 1; i <= n; ++i) {
    const double z = ObservationNoise(3, i);
    sum += z;
    squares += z * z;
  }
  // Standard errors: 1 / sqrt(n) = 0.007 for the mean, about 0.01 for the
  // variance.
  EXPECT_NEAR(sum / n, 0, 0.03);
  EXPECT_NEAR(squares / n, 1, 0.05);
}

}  // namespace
}  // namespace hptune::quality
