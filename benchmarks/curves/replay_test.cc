// The replay on the benchmark's own curves (data/sgd.*): early stopping,
// through the real engine, trains far fewer steps than no stopping for the
// same trials, at the same best result within a few validation samples; the
// envelope rule fewer than the default; asha-resume resumes paused trials.
#include "benchmarks/curves/replay.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hptune::curves {
namespace {

struct Totals {
  int64_t steps = 0;
  double median_regret = 0;
  int resumed = 0;
};

Totals RunSeeds(const CurveTable& table, std::optional<std::string> rule) {
  Totals totals;
  std::vector<double> regrets;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    ReplayOptions options;
    options.rule = rule;
    options.seed = seed;
    options.workers = 4;
    options.max_trials = 40;
    options.budget = 1000;  // Never reached: 40 trials end the run.
    auto r = Replay(table, options);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return totals;
    EXPECT_EQ(r->trials, 40);
    totals.steps += r->steps;
    totals.resumed += r->resumed;
    regrets.push_back(r->final_regret);
  }
  std::sort(regrets.begin(), regrets.end());
  totals.median_regret = regrets[1];
  return totals;
}

TEST(CurveReplayTest, StoppingRulesSaveStepsOnRealCurvesAtTheSameResult) {
  auto table = LoadCurveTable(HPTUNE_CURVES_DATA, "sgd");
  ASSERT_TRUE(table.ok()) << table.status();
  const Totals none = RunSeeds(*table, std::nullopt);
  EXPECT_EQ(none.steps, 3 * 40 * table->steps);
  // One misclassified validation example of the 269.
  const double one_example = 1.0 / 269;
  for (std::string rule :
       {"median-at-step", "asha", "envelope", "asha-resume"}) {
    const Totals stopped = RunSeeds(*table, rule);
    const double saved = 1.0 - static_cast<double>(stopped.steps) / none.steps;
    EXPECT_GT(saved, 0.15) << rule << " trained " << stopped.steps
                           << " steps, no stopping " << none.steps;
    EXPECT_LE(stopped.median_regret, none.median_regret + 2 * one_example)
        << rule;
  }
}

// The rule that learns from the study's curves trains fewer steps than the
// default on the same trials (random search draws the same points whatever
// the rule), at the same median best within two validation examples.
TEST(CurveReplayTest, TheEnvelopeRuleSavesMoreThanTheDefault) {
  auto table = LoadCurveTable(HPTUNE_CURVES_DATA, "sgd");
  ASSERT_TRUE(table.ok()) << table.status();
  const Totals none = RunSeeds(*table, std::nullopt);
  const Totals median = RunSeeds(*table, "median-at-step");
  const Totals envelope = RunSeeds(*table, "envelope");
  EXPECT_LT(envelope.steps, median.steps);
  EXPECT_LE(envelope.median_regret, none.median_regret + 2.0 / 269);
}

// Freeze-thaw: ASHA whose stops are pauses resumes some paused trials from
// where they stopped; the stopping form resumes none.
TEST(CurveReplayTest, AshaResumeGoesOnWithPausedTrialsThatRankLater) {
  auto table = LoadCurveTable(HPTUNE_CURVES_DATA, "sgd");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_GT(RunSeeds(*table, "asha-resume").resumed, 0);
  EXPECT_EQ(RunSeeds(*table, "asha").resumed, 0);
}

// The multi-fidelity designer through the real engine: with no stopping it
// is the GP, trial for trial; under a rule it reads the stopped trials at
// their forecasts, and its proposals, so its run, depart from the GP's.
TEST(CurveReplayTest, TheMultiFidelityDesignerIsTheGpUntilATrialStops) {
  auto table = LoadCurveTable(HPTUNE_CURVES_DATA, "sgd");
  ASSERT_TRUE(table.ok()) << table.status();
  auto run = [&](Algorithm algorithm, std::optional<std::string> rule) {
    ReplayOptions options;
    options.algorithm = algorithm;
    options.rule = rule;
    options.workers = 1;
    options.max_trials = 30;
    options.budget = 1000;
    options.checkpoints = {2, 4, 6, 8, 10};
    auto r = Replay(*table, options);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : ReplayResult{};
  };
  const ReplayResult gp = run(Algorithm::kUnspecified, std::nullopt);
  const ReplayResult mf = run(Algorithm::kMultiFidelityGp, std::nullopt);
  EXPECT_EQ(mf.steps, gp.steps);
  EXPECT_EQ(mf.regret_at, gp.regret_at);
  EXPECT_EQ(mf.final_regret, gp.final_regret);
  const ReplayResult gp_stopped = run(Algorithm::kUnspecified, "asha-resume");
  const ReplayResult mf_stopped =
      run(Algorithm::kMultiFidelityGp, "asha-resume");
  EXPECT_GT(mf_stopped.stopped, 0);
  EXPECT_TRUE(mf_stopped.steps != gp_stopped.steps ||
              mf_stopped.regret_at != gp_stopped.regret_at)
      << "the same run: the stopped trials' forecasts changed nothing";
}

}  // namespace
}  // namespace hptune::curves
