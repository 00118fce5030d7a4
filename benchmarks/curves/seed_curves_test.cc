// The seed-averaged tables: LoadSeedCurves on hand-written files, and the
// replay's scoring on them: each trial trains one seed's curve, and regret
// is the best trial's configuration's mean final value over its seeds, so
// a lucky training earns nothing.
#include "benchmarks/curves/seed_curves.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "benchmarks/curves/replay.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune::curves {
namespace {

using ::testing::HasSubstr;

// x in [0, 1]; configuration 0 at x = 0.25, 1 at x = 0.75; two steps.
CurveTable TwoConfigurations() {
  ParameterSpec x;
  x.name = "x";
  x.type = ParameterType::kDouble;
  x.min_value = 0;
  x.max_value = 1;
  CurveTable t;
  t.task = "toy";
  t.metric_name = "loss";
  t.steps = 2;
  t.space = SearchSpace({x});
  t.configs = {{{"x", ParameterValue::Double(0.25)}},
               {{"x", ParameterValue::Double(0.75)}}};
  t.metric = {{0.8, 0.1}, {0.8, 0.5}};
  t.cost = {{1, 1}, {1, 1}};
  return t;
}

std::string WriteSeeds(const std::string& text) {
  const std::string dir =
      ::testing::TempDir() + "/seeds_" +
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/toy.seeds.csv") << text;
  return dir;
}

// Configuration 0 ends at 0.1 with seed 0 (the table's lucky training) but
// at 0.9 with seeds 1 and 2: mean 0.6333. Configuration 1 ends at 0.5 with
// every seed: the better configuration.
constexpr char kLucky[] =
    "id,seed,m0,m1,c0,c1\n"
    "0,0,0.8,0.1,1,1\n0,1,0.95,0.9,1,1\n0,2,0.95,0.9,1,1\n"
    "1,0,0.8,0.5,1,1\n1,1,0.8,0.5,1,1\n1,2,0.8,0.5,1,1\n";

TEST(SeedCurvesTest, MeansAreOverEachConfigurationsSeeds) {
  const CurveTable table = TwoConfigurations();
  auto seeds = LoadSeedCurves(WriteSeeds(kLucky), table);
  ASSERT_TRUE(seeds.ok()) << seeds.status();
  EXPECT_EQ(seeds->seeds, 3);
  EXPECT_DOUBLE_EQ(seeds->MeanFinal(0), (0.1 + 0.9 + 0.9) / 3);
  EXPECT_DOUBLE_EQ(seeds->MeanFinal(1), 0.5);
  EXPECT_DOUBLE_EQ(seeds->BestMeanFinal(), 0.5);
}

TEST(SeedCurvesTest, AConfigurationWithoutEverySeedIsAnError) {
  const CurveTable table = TwoConfigurations();
  auto seeds = LoadSeedCurves(
      WriteSeeds("id,seed,m0,m1,c0,c1\n0,0,1,1,1,1\n0,1,1,1,1,1\n"
                 "1,1,1,1,1,1\n"),
      table);
  ASSERT_FALSE(seeds.ok());
  EXPECT_THAT(seeds.status().message(),
              HasSubstr("toy.seeds.csv: configuration 1 lacks seeds of 0..1"));
  auto bad =
      LoadSeedCurves(WriteSeeds("id,seed,m0,m1,c0,c1\n0,0,1,x,1,1\n"), table);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("toy.seeds.csv:2: column 4"));
}

// Random search over both configurations: on the single-seed table
// configuration 0 looks best (0.1, regret 0 once it is tried); scored on means,
// a run whose best trial is configuration 0 on its lucky seed is charged 0.6333
// - 0.5, and one that ended on configuration 1 nothing. Trials draw their seed,
// so both outcomes occur over a few replay seeds.
TEST(SeedCurvesTest, ALuckyTrainingEarnsNothingInTheReplay) {
  const CurveTable table = TwoConfigurations();
  auto seeds = LoadSeedCurves(WriteSeeds(kLucky), table);
  ASSERT_TRUE(seeds.ok()) << seeds.status();
  std::set<double> regrets;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    ReplayOptions options;
    options.seed = seed;
    options.workers = 1;
    options.max_trials = 4;
    options.budget = 1000;
    auto single = Replay(table, options);
    ASSERT_TRUE(single.ok()) << single.status();
    // Against the table's lowest value, 0.1: 0, or 0.4 without a trial
    // of configuration 0.
    EXPECT_TRUE(single->final_regret == 0 ||
                std::abs(single->final_regret - 0.4) < 1e-12)
        << single->final_regret;
    options.seeds = &*seeds;
    auto seeded = Replay(table, options);
    ASSERT_TRUE(seeded.ok()) << seeded.status();
    regrets.insert(seeded->final_regret);
  }
  EXPECT_THAT(regrets, ::testing::Contains(::testing::DoubleEq(0)));
  EXPECT_THAT(regrets,
              ::testing::Contains(::testing::DoubleNear(1.9 / 3 - 0.5, 1e-12)));
  for (double r : regrets) EXPECT_GE(r, 0);
}

}  // namespace
}  // namespace hptune::curves
