// The real quality_harness binary: its CSV, its table and its flag errors.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/run_process.h"

namespace hptune::quality {
namespace {

using ::hptune::testing::RunProcess;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kHeader[] =
    "library,designer,function,mode,budget,seeds,median_regret,min_regret,"
    "max_regret";

// The harness with `args` (the binary first) and then `format`.
::hptune::testing::ProcessResult RunWithFormat(std::vector<std::string> args,
                                               const char* format) {
  args.push_back(format);
  return RunProcess(args);
}

TEST(QualityHarnessTest, CsvHasOneRowPerFunctionBudgetModeAndDesigner) {
  auto r = RunProcess({QUALITY_HARNESS, "--functions=branin,mixed",
                       "--designers=random,gp", "--seeds=3", "--budgets=8,4",
                       "--modes=sequential,parallel4", "--format=csv",
                       "--threads=2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines =
      absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u + 2 * 2 * 2 * 2);
  EXPECT_EQ(lines[0], kHeader);
  EXPECT_EQ(lines[1].substr(0, lines[1].find(",3,")),
            "hptune,random,branin,sequential,4");
  // Per row: min <= median <= max, and regret >= 0 (the optimum is a lower
  // bound of every value).
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> f = absl::StrSplit(lines[i], ',');
    ASSERT_EQ(f.size(), 9u) << lines[i];
    EXPECT_EQ(f[5], "3");
    double median, min, max;
    ASSERT_TRUE(absl::SimpleAtod(f[6], &median) &&
                absl::SimpleAtod(f[7], &min) && absl::SimpleAtod(f[8], &max))
        << lines[i];
    EXPECT_LE(0, min) << lines[i];
    EXPECT_LE(min, median) << lines[i];
    EXPECT_LE(median, max) << lines[i];
  }
  // Progress and timings went to stderr, not into the CSV.
  EXPECT_THAT(r.err, HasSubstr("24 runs in"));
}

TEST(QualityHarnessTest, LargerBudgetsNeverHaveLargerRegret) {
  auto r = RunProcess({QUALITY_HARNESS, "--functions=levy4",
                       "--designers=random", "--seeds=1", "--budgets=5,40",
                       "--modes=parallel4", "--format=csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines =
      absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  double at5, at40;
  ASSERT_TRUE(absl::SimpleAtod(
      std::vector<std::string>(absl::StrSplit(lines[1], ','))[6], &at5));
  ASSERT_TRUE(absl::SimpleAtod(
      std::vector<std::string>(absl::StrSplit(lines[2], ','))[6], &at40));
  EXPECT_LE(at40, at5);
}

TEST(QualityHarnessTest, RunsFormatHasEachSeedBehindTheCsvMedians) {
  const std::vector<std::string> common = {
      QUALITY_HARNESS, "--functions=branin", "--designers=random,gp",
      "--seeds=3",     "--budgets=6,3",      "--modes=parallel2",
      "--threads=2"};
  auto runs = RunWithFormat(common, "--format=runs");
  auto summary = RunWithFormat(common, "--format=csv");
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  std::vector<std::string> lines =
      absl::StrSplit(runs.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u + 2 * 2 * 3);  // Budgets x designers x seeds.
  EXPECT_EQ(lines[0], "library,designer,function,mode,budget,seed,regret");
  // Regrets per (designer, budget), in seed order.
  std::map<std::pair<std::string, std::string>, std::vector<double>> regrets;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> f = absl::StrSplit(lines[i], ',');
    ASSERT_EQ(f.size(), 7u) << lines[i];
    EXPECT_EQ(f[2], "branin");
    EXPECT_EQ(f[3], "parallel2");
    auto& seeds = regrets[{f[1], f[4]}];
    EXPECT_EQ(f[5], std::to_string(seeds.size() + 1)) << lines[i];
    double regret;
    ASSERT_TRUE(absl::SimpleAtod(f[6], &regret)) << lines[i];
    seeds.push_back(regret);
  }
  // The same runs (deterministic per seed) give the summary's medians.
  std::vector<std::string> rows =
      absl::StrSplit(summary.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(rows.size(), 1u + 2 * 2);
  for (size_t i = 1; i < rows.size(); ++i) {
    std::vector<std::string> f = absl::StrSplit(rows[i], ',');
    std::vector<double> seeds = regrets[{f[1], f[4]}];
    ASSERT_EQ(seeds.size(), 3u) << rows[i];
    std::sort(seeds.begin(), seeds.end());
    double median;
    ASSERT_TRUE(absl::SimpleAtod(f[6], &median)) << rows[i];
    EXPECT_NEAR(median, seeds[1], 1e-5 * std::abs(seeds[1]) + 1e-300)
        << rows[i];
  }
}

// Each run's regret is the regret of its trial that reported the least: the
// best trial without noise, and with noise the one a user would deploy.
void ExpectTrialsBehindEachRunsRegret(const std::string& function) {
  SCOPED_TRACE(function);
  const std::vector<std::string> common = {
      QUALITY_HARNESS,  "--functions=" + function,
      "--designers=gp", "--seeds=2",
      "--budgets=14",   "--modes=sequential,parallel2",
      "--threads=2"};
  auto trials = RunWithFormat(common, "--format=trials");
  auto runs = RunWithFormat(common, "--format=runs");
  ASSERT_EQ(trials.exit_code, 0) << trials.err;
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  std::vector<std::string> lines =
      absl::StrSplit(trials.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u + 2 * 2 * 14);  // Modes x seeds x trials.
  EXPECT_EQ(lines[0],
            "designer,function,mode,seed,trial,origin,regret,reported_regret,"
            "parameters");
  const bool noisy = function.ends_with("_noisy");
  // Per (mode, seed): the least reported regret so far and its trial's
  // regret; the model's suggestions seen.
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> best;
  int from_model = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    // Origins and parameters are quoted and hold no comma here.
    std::vector<std::string> f = absl::StrSplit(lines[i], ',');
    ASSERT_EQ(f.size(), 9u) << lines[i];
    EXPECT_EQ(f[0], "gp");
    EXPECT_EQ(f[1], function);
    const int trial = static_cast<int>((i - 1) % 14) + 1;
    EXPECT_EQ(f[4], std::to_string(trial)) << lines[i];
    if (f[5].starts_with("\"gp-")) ++from_model;
    EXPECT_THAT(f[8], StartsWith("\"x=")) << lines[i];
    EXPECT_THAT(f[8], HasSubstr(";c=")) << lines[i];
    double regret, reported;
    ASSERT_TRUE(absl::SimpleAtod(f[6], &regret) &&
                absl::SimpleAtod(f[7], &reported))
        << lines[i];
    EXPECT_LE(0, regret) << lines[i];
    if (noisy) {
      EXPECT_NE(reported, regret) << lines[i];
    } else {
      EXPECT_EQ(reported, regret) << lines[i];
    }
    auto [it, first] = best.try_emplace({f[2], f[3]}, reported, regret);
    if (!first && reported < it->second.first) it->second = {reported, regret};
  }
  // InitialPoints(4 features, 14 trials) = 4, so 10 model suggestions per
  // run.
  EXPECT_EQ(from_model, 2 * 2 * 10);
  std::vector<std::string> rows =
      absl::StrSplit(runs.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(rows.size(), 1u + 2 * 2);
  for (size_t i = 1; i < rows.size(); ++i) {
    std::vector<std::string> f = absl::StrSplit(rows[i], ',');
    double regret;
    ASSERT_TRUE(absl::SimpleAtod(f[6], &regret)) << rows[i];
    EXPECT_EQ(best.at({f[3], f[5]}).second, regret) << rows[i];
  }
}

TEST(QualityHarnessTest, TrialsFormatHasEveryTrialBehindEachRunsRegret) {
  ExpectTrialsBehindEachRunsRegret("mixed");
}

TEST(QualityHarnessTest, NoisyRunsRegretIsTheTrialReportedBest) {
  ExpectTrialsBehindEachRunsRegret("mixed_noisy");
}

TEST(QualityHarnessTest, TableIsTheDefaultFormat) {
  auto r = RunProcess({QUALITY_HARNESS, "--functions=branin",
                       "--designers=quasi_random", "--seeds=2", "--budgets=4",
                       "--modes=sequential"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("function  budget  mode"));
  EXPECT_THAT(r.out, HasSubstr("quasi_random"));
  EXPECT_THAT(r.out, HasSubstr("\nbranin    4       sequential"));
}

TEST(QualityHarnessTest, BadFlagExitsWithTwoAndNamesTheFlag) {
  auto r = RunProcess({QUALITY_HARNESS, "--budgets=50,zero"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "quality_harness: flag --budgets: expected an integer in "
            "1..100000, got \"zero\"\n");
}

TEST(QualityHarnessTest, HelpListsTheFlags) {
  auto r = RunProcess({QUALITY_HARNESS, "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--designers", "--functions", "--seeds", "--budgets",
                           "--modes", "--format", "--threads"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
}

}  // namespace
}  // namespace hptune::quality
