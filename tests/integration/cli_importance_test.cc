// `hptune studies importance` through the real binary on real SQLite study
// files: issue 66's 30-trial study (the parameter that decides first, with
// intervals) and a 12-trial one (the note that there are too few to rank).
#include <filesystem>
#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/engine/engine.h"
#include "hptune/store/open_store.h"
#include "nlohmann/json.hpp"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunProcess;

// Random search over x1, x2, x3 in [0, 1] of 10 (x1 - 0.7)^2 +
// 0.5 (x2 - 0.2)^2, x3 without effect: `count` results told to the engine.
void MakeStudy(const std::string& db, const std::string& name, int count) {
  auto store = store::OpenSqliteStore(db, hptune::SystemClock());
  ASSERT_TRUE(store.ok()) << store.status();
  engine::TuningEngine engine(**store, hptune::SystemClock());
  StudySpec spec;
  std::vector<ParameterSpec> parameters;
  for (const char* x : {"x1", "x2", "x3"}) {
    parameters.push_back({.name = x,
                          .type = ParameterType::kDouble,
                          .min_value = 0,
                          .max_value = 1,
                          .scale = ScaleType::kLinear});
  }
  spec.search_space = SearchSpace(std::move(parameters));
  spec.SetSingleMetric("loss", Goal::kMinimize);
  spec.algorithm = Algorithm::kRandomSearch;
  ASSERT_TRUE(engine.OpenOrCreateStudy(name, spec).ok());
  std::mt19937 random(5);
  std::uniform_real_distribution<double> uniform(0, 1);
  for (int i = 0; i < count; ++i) {
    const double x1 = uniform(random), x2 = uniform(random);
    Trial trial;
    trial.state = TrialState::kSucceeded;
    trial.parameters = {{"x1", ParameterValue::Double(x1)},
                        {"x2", ParameterValue::Double(x2)},
                        {"x3", ParameterValue::Double(uniform(random))}};
    const double loss =
        10 * (x1 - 0.7) * (x1 - 0.7) + 0.5 * (x2 - 0.2) * (x2 - 0.2);
    trial.final_measurement =
        Measurement{.step = 1, .metrics = {{"loss", loss}}};
    auto created = engine.CreateTrial(name, std::move(trial));
    ASSERT_TRUE(created.ok()) << created.status();
  }
}

class CliImportanceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(testing::MakeTempDir());
    MakeStudy(Db(), "thirty", 30);
    MakeStudy(Db(), "twelve", 12);
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  static std::string Db() { return *dir_ + "/study.db"; }
  static std::string* dir_;
};
std::string* CliImportanceTest::dir_ = nullptr;

TEST_F(CliImportanceTest, TableRanksTheDecidingParameterFirstWithIntervals) {
  auto r = RunProcess(
      {HPTUNE_BINARY, "studies", "importance", "thirty", "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The header, then x1's row.
  const size_t second_line = r.out.find('\n') + 1;
  EXPECT_EQ(r.out.compare(second_line, 3, "x1 "), 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("90% interval"));
  EXPECT_THAT(r.out, HasSubstr("among the best 15 of 30 finished trials"));
  EXPECT_THAT(r.out, HasSubstr("over 200 bootstrap resamples"));
  EXPECT_THAT(r.out, Not(HasSubstr("Too few")));
}

TEST_F(CliImportanceTest, JsonGivesEachIntervalAroundItsImportance) {
  auto r = RunProcess({HPTUNE_BINARY, "studies", "importance", "thirty", "--db",
                       Db(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["trials"], 30);
  EXPECT_EQ(doc["topTrials"], 15);
  EXPECT_EQ(doc["trialsNeeded"], 30);
  EXPECT_EQ(doc["bootstrapResamples"], 200);
  EXPECT_EQ(doc["note"], "");
  ASSERT_EQ(doc["importances"].size(), 3u);
  EXPECT_EQ(doc["importances"][0]["parameter"], "x1");
  for (const auto& entry : doc["importances"]) {
    EXPECT_LE(entry["lower"].get<double>(), entry["importance"].get<double>());
    EXPECT_GE(entry["upper"].get<double>(), entry["importance"].get<double>());
  }
  // A fixed seed: the same study prints the same intervals every time.
  auto again = RunProcess({HPTUNE_BINARY, "studies", "importance", "thirty",
                           "--db", Db(), "--format", "json"});
  EXPECT_EQ(again.out, r.out);
  auto csv = RunProcess({HPTUNE_BINARY, "studies", "importance", "thirty",
                         "--db", Db(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("parameter,importance,lower,upper\r\n", 0), 0u)
      << csv.out;
}

TEST_F(CliImportanceTest, TooFewTrialsSaySoWithBothCounts) {
  auto r = RunProcess(
      {HPTUNE_BINARY, "studies", "importance", "twelve", "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Too few trials to rank the parameters: 12 "
                               "finished trial(s) with a value, at least 30 "
                               "needed."));
  auto json = RunProcess({HPTUNE_BINARY, "studies", "importance", "twelve",
                          "--db", Db(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_THAT(doc["note"].get<std::string>(), HasSubstr("at least 30 needed"));
  EXPECT_EQ(doc["trials"], 12);
}

}  // namespace
}  // namespace hptune
