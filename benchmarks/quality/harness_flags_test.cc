#include "benchmarks/quality/harness_flags.h"

#include <string>
#include <vector>

#include "benchmarks/quality/conditional_problems.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune::quality {
namespace {

using ::testing::ElementsAre;

absl::StatusOr<HarnessOptions> Parse(std::vector<std::string> args) {
  return ParseHarnessFlags(args);
}

std::string ErrorOf(std::vector<std::string> args) {
  auto options = Parse(std::move(args));
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(options.status().message());
}

TEST(HarnessFlagsTest, DefaultsRunTheWholeSuiteBothModesAndBothBudgets) {
  auto options = Parse({});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_THAT(options->designers, ElementsAre("gp", "random"));
  EXPECT_EQ(options->functions.size(), TestSuite().size());
  EXPECT_EQ(options->seeds, 20);
  EXPECT_THAT(options->budgets, ElementsAre(50, 100));
  EXPECT_THAT(options->modes, ElementsAre(WorkerMode{"sequential", 1},
                                          WorkerMode{"parallel4", 4}));
  EXPECT_EQ(options->format, OutputFormat::kTable);
  EXPECT_GE(options->threads, 1);
}

TEST(HarnessFlagsTest, EveryFlagIsRead) {
  auto options = Parse({"--designers=quasi_random", "--functions=mixed,branin",
                        "--seeds=3", "--budgets=100,10", "--modes=parallel8",
                        "--format=csv", "--threads=2"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_THAT(options->designers, ElementsAre("quasi_random"));
  ASSERT_EQ(options->functions.size(), 2u);
  EXPECT_EQ(options->functions[0]->name, "mixed");
  EXPECT_EQ(options->functions[1]->name, "branin");
  EXPECT_EQ(options->seeds, 3);
  EXPECT_THAT(options->budgets, ElementsAre(10, 100));  // Sorted.
  EXPECT_THAT(options->modes, ElementsAre(WorkerMode{"parallel8", 8}));
  EXPECT_EQ(options->format, OutputFormat::kCsv);
  EXPECT_EQ(options->threads, 2);
}

TEST(HarnessFlagsTest, RunsFormatIsOneLinePerRun) {
  auto options = Parse({"--format=runs"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->format, OutputFormat::kRuns);
}

TEST(HarnessFlagsTest, TrialsFormatIsOneLinePerTrial) {
  auto options = Parse({"--format=trials"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->format, OutputFormat::kTrials);
}

TEST(HarnessFlagsTest, HoldoutNamesTheHeldOutSuiteBesideOtherFunctions) {
  auto options = Parse({"--functions=branin,holdout"});
  ASSERT_TRUE(options.ok()) << options.status();
  ASSERT_EQ(options->functions.size(), 1 + HoldoutSuite().size());
  EXPECT_EQ(options->functions[0]->name, "branin");
  for (size_t i = 0; i < HoldoutSuite().size(); ++i) {
    EXPECT_EQ(options->functions[i + 1], &HoldoutSuite()[i]);
  }
}

TEST(HarnessFlagsTest, NoisyNamesTheNoisySuite) {
  auto options = Parse({"--functions=noisy,branin"});
  ASSERT_TRUE(options.ok()) << options.status();
  ASSERT_EQ(options->functions.size(), NoisySuite().size() + 1);
  for (size_t i = 0; i < NoisySuite().size(); ++i) {
    EXPECT_EQ(options->functions[i], &NoisySuite()[i]);
  }
  EXPECT_EQ(options->functions.back()->name, "branin");
}

TEST(HarnessFlagsTest, ConditionalNamesTheConditionalProblems) {
  auto options = Parse({"--functions=branin,conditional"});
  ASSERT_TRUE(options.ok()) << options.status();
  ASSERT_EQ(options->functions.size(), 1 + ConditionalSuite().size());
  for (size_t i = 0; i < ConditionalSuite().size(); ++i) {
    EXPECT_EQ(options->functions[i + 1], &ConditionalSuite()[i]);
  }
  options = Parse({"--functions=model_tree,jenatton"});
  ASSERT_TRUE(options.ok()) << options.status();
  ASSERT_EQ(options->functions.size(), 2u);
  EXPECT_EQ(options->functions[0], &ConditionalSuite()[2]);
  EXPECT_EQ(options->functions[1], &ConditionalSuite()[0]);
}

TEST(HarnessFlagsTest, DesignerNamesMapToAlgorithms) {
  EXPECT_EQ(*DesignerAlgorithm("gp"), Algorithm::kUnspecified);
  EXPECT_EQ(*DesignerAlgorithm("random"), Algorithm::kRandomSearch);
  EXPECT_EQ(*DesignerAlgorithm("quasi_random"), Algorithm::kQuasiRandomSearch);
}

TEST(HarnessFlagsTest, ErrorsNameTheFlagAndTheValue) {
  EXPECT_EQ(ErrorOf({"--designers=gp,tpe"}),
            "flag --designers: unknown designer \"tpe\" (known: gp, random, "
            "quasi_random)");
  EXPECT_EQ(
      ErrorOf({"--functions=sphere"}),
      "flag --functions: unknown test function \"sphere\" (known: "
      "branin, hartmann6, ackley5, rosenbrock4, levy4, "
      "styblinski_tang8, mixed, goldstein_price, six_hump_camel, "
      "hartmann3, shekel4, dixon_price6, powell8, branin_noisy, "
      "hartmann6_noisy, ackley5_noisy, rosenbrock4_noisy, levy4_noisy, "
      "styblinski_tang8_noisy, mixed_noisy, narrow_category); \"holdout\" "
      "names the "
      "held-out six, \"noisy\" the noisy seven, \"conditional\" the "
      "conditional jenatton, optimizer_choice and model_tree");
  EXPECT_EQ(ErrorOf({"--functions=conditional,jenatton"}),
            "flag --functions: a function named twice in "
            "\"conditional,jenatton\" (a group includes each of its "
            "functions)");
  EXPECT_EQ(ErrorOf({"--functions=holdout,shekel4"}),
            "flag --functions: a function named twice in "
            "\"holdout,shekel4\" (a group includes each of its functions)");
  EXPECT_EQ(ErrorOf({"--functions=levy4_noisy,noisy"}),
            "flag --functions: a function named twice in "
            "\"levy4_noisy,noisy\" (a group includes each of its functions)");
  EXPECT_EQ(ErrorOf({"--seeds=0"}),
            "flag --seeds: expected an integer in 1..10000, got \"0\"");
  EXPECT_EQ(ErrorOf({"--seeds=many"}),
            "flag --seeds: expected an integer in 1..10000, got \"many\"");
  EXPECT_EQ(ErrorOf({"--budgets=50,-1"}),
            "flag --budgets: expected an integer in 1..100000, got \"-1\"");
  EXPECT_EQ(ErrorOf({"--budgets=50,50"}),
            "flag --budgets: \"50\" is listed twice");
  EXPECT_EQ(ErrorOf({"--budgets=50,"}),
            "flag --budgets: empty item in \"50,\"");
  EXPECT_EQ(ErrorOf({"--budgets="}), "flag --budgets: empty item in \"\"");
  EXPECT_EQ(ErrorOf({"--modes=parallel1"}),
            "flag --modes: unknown mode \"parallel1\" (expected sequential or "
            "parallelN, N in 2..1000)");
  EXPECT_EQ(ErrorOf({"--modes=parallel04"}),
            "flag --modes: unknown mode \"parallel04\" (expected sequential "
            "or parallelN, N in 2..1000)");
  EXPECT_EQ(ErrorOf({"--format=json"}),
            "flag --format: expected table, csv, runs or trials, got \"json\"");
  EXPECT_EQ(ErrorOf({"--threads=0"}),
            "flag --threads: expected an integer in 1..1024, got \"0\"");
}

TEST(HarnessFlagsTest, UnknownFlagsMissingValuesAndPositionalsAreErrors) {
  EXPECT_EQ(ErrorOf({"--seed=3"}), "unknown flag --seed (see --help)");
  EXPECT_EQ(ErrorOf({"--seeds"}), "flag --seeds needs a value: --seeds=VALUE");
  EXPECT_EQ(ErrorOf({"branin"}), "unexpected argument \"branin\" (see --help)");
}

}  // namespace
}  // namespace hptune::quality
