// The `hptune studies` and `hptune trials` commands on a real study database
// made by the embedding example.
#include <algorithm>
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunProcess;

class CliStudiesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(testing::MakeTempDir());
    auto made = RunProcess({HPTUNE_EXAMPLE, *dir_ + "/study.db", "lr_study"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  static std::string Db() { return *dir_ + "/study.db"; }
  static std::string* dir_;
};
std::string* CliStudiesTest::dir_ = nullptr;

TEST_F(CliStudiesTest, ListsStudies) {
  auto r = RunProcess({HPTUNE_BINARY, "studies", "list", "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("lr_study"));
  EXPECT_THAT(r.out, HasSubstr("COMPLETED"));
  EXPECT_THAT(r.out, HasSubstr("24/24"));
}

// --db takes a store URL as well as a path; a memory: store is empty.
TEST_F(CliStudiesTest, ReadsTheDatabaseByUrl) {
  auto r =
      RunProcess({HPTUNE_BINARY, "studies", "list", "--db", "sqlite:" + Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("lr_study"));
  auto memory =
      RunProcess({HPTUNE_BINARY, "studies", "list", "--db", "memory:"});
  EXPECT_EQ(memory.exit_code, 0) << memory.err;
  EXPECT_THAT(memory.out, Not(HasSubstr("lr_study")));
  auto missing = RunProcess(
      {HPTUNE_BINARY, "studies", "list", "--db", "sqlite:" + *dir_ + "/no.db"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.err, HasSubstr("no study database at"));
  auto unknown =
      RunProcess({HPTUNE_BINARY, "studies", "list", "--db", "nosuch:x"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_THAT(unknown.err, HasSubstr("unknown scheme \"nosuch:\""));
}

TEST_F(CliStudiesTest, DescribesAStudyWithItsTrialsAndBest) {
  auto r = RunProcess(
      {HPTUNE_BINARY, "studies", "describe", "lr_study", "--db=" + Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("RANDOM_SEARCH"));
  EXPECT_THAT(r.out, HasSubstr("learning_rate"));
  EXPECT_THAT(r.out, HasSubstr("best trial: "));
}

TEST_F(CliStudiesTest, ExportsTrialsAsCsvAndJson) {
  auto csv = RunProcess({HPTUNE_BINARY, "trials", "list", "--study", "lr_study",
                         "--db", Db(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("trialId,state,learning_rate,l2,epochs,", 0), 0u)
      << csv.out;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 25);
  auto json = RunProcess({HPTUNE_BINARY, "trials", "list", "--study",
                          "lr_study", "--db", Db(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"trialId\": \"24\""));
  EXPECT_THAT(json.out, HasSubstr("\"hyperparameters\": {"));
  EXPECT_THAT(json.out, HasSubstr("\"objectiveValue\": "));
}

TEST_F(CliStudiesTest, DescribesATrialWithItsLearningCurve) {
  auto r = RunProcess({HPTUNE_BINARY, "trials", "describe", "1", "--study",
                       "lr_study", "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("measurements:"));
  EXPECT_THAT(r.out, HasSubstr("accuracy"));
}

TEST_F(CliStudiesTest, ImportanceRanksEveryParameterWithABar) {
  auto r = RunProcess(
      {HPTUNE_BINARY, "studies", "importance", "lr_study", "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("parameter", 0), 0u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("importance"));
  for (const char* parameter :
       {"learning_rate", "l2", "epochs", "batch_size", "optimizer"}) {
    EXPECT_THAT(r.out, HasSubstr(parameter));
  }
  EXPECT_THAT(r.out, HasSubstr("#"));
  // 24 trials: the top set is half of them (12, and a tie at the cut-off),
  // and they are too few to rank.
  EXPECT_THAT(r.out, HasSubstr("among the best 13 of 24 finished trials"));
  EXPECT_THAT(r.out, HasSubstr("Too few trials to rank the parameters: 24 "));
}

TEST_F(CliStudiesTest, ImportanceAsJsonAndCsv) {
  auto json = RunProcess({HPTUNE_BINARY, "studies", "importance", "lr_study",
                          "--db", Db(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"study\": \"lr_study\""));
  EXPECT_THAT(json.out, HasSubstr("\"method\": \"PED-ANOVA\""));
  EXPECT_THAT(json.out, HasSubstr("\"trials\": 24"));
  EXPECT_THAT(json.out, HasSubstr("\"parameter\": \"learning_rate\""));
  EXPECT_THAT(json.out, HasSubstr("\"importance\": "));

  auto csv = RunProcess({HPTUNE_BINARY, "studies", "importance", "lr_study",
                         "--db", Db(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("parameter,importance,lower,upper\r\n", 0), 0u)
      << csv.out;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 6);
}

TEST_F(CliStudiesTest, ImportanceErrorsNameTheStudy) {
  auto missing = RunProcess(
      {HPTUNE_BINARY, "studies", "importance", "nope", "--db", Db()});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_THAT(missing.err, HasSubstr("nope"));
  auto no_name =
      RunProcess({HPTUNE_BINARY, "studies", "importance", "--db", Db()});
  EXPECT_EQ(no_name.exit_code, 64);
  EXPECT_THAT(no_name.err, HasSubstr("importance takes 1 argument(s), got 0"));
}

TEST_F(CliStudiesTest, HelpIsASubcommandNotAStudyName) {
  auto help = RunProcess({HPTUNE_BINARY, "studies", "help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("usage: hptune studies"));
  auto named_help =
      RunProcess({HPTUNE_BINARY, "studies", "describe", "help", "--db", Db()});
  EXPECT_EQ(named_help.exit_code, 3);
  EXPECT_THAT(named_help.err, HasSubstr("help"));
}

TEST_F(CliStudiesTest, ErrorsSayWhatIsWrongWithMeaningfulExitCodes) {
  auto no_db = RunProcess(
      {HPTUNE_BINARY, "studies", "list", "--db", *dir_ + "/missing.db"});
  EXPECT_EQ(no_db.exit_code, 3);
  EXPECT_THAT(no_db.err, HasSubstr("no study database at"));
  EXPECT_FALSE(std::filesystem::exists(*dir_ + "/missing.db"));

  auto no_study =
      RunProcess({HPTUNE_BINARY, "studies", "describe", "nope", "--db", Db()});
  EXPECT_EQ(no_study.exit_code, 3);
  EXPECT_THAT(no_study.err, HasSubstr("nope"));

  auto no_trial = RunProcess({HPTUNE_BINARY, "trials", "describe", "99",
                              "--study", "lr_study", "--db", Db()});
  EXPECT_EQ(no_trial.exit_code, 3);
  EXPECT_THAT(no_trial.err, HasSubstr("99"));

  auto bad_number = RunProcess({HPTUNE_BINARY, "trials", "describe", "x1",
                                "--study", "lr_study", "--db", Db()});
  EXPECT_EQ(bad_number.exit_code, 2);
  EXPECT_THAT(bad_number.err,
              HasSubstr("TRIAL must be a trial number, got \"x1\""));

  auto bad_format = RunProcess(
      {HPTUNE_BINARY, "studies", "list", "--db", Db(), "--format", "xml"});
  EXPECT_EQ(bad_format.exit_code, 2);
  EXPECT_THAT(bad_format.err,
              HasSubstr("--format must be table, json or csv, got \"xml\""));

  auto bad_flag = RunProcess({HPTUNE_BINARY, "studies", "list", "--dbb", Db()});
  EXPECT_EQ(bad_flag.exit_code, 64);
  EXPECT_THAT(bad_flag.err, HasSubstr("unknown flag --dbb"));

  auto no_study_flag =
      RunProcess({HPTUNE_BINARY, "trials", "list", "--db", Db()});
  EXPECT_EQ(no_study_flag.exit_code, 64);
  EXPECT_THAT(no_study_flag.err, HasSubstr("--study is required"));

  // The command line is checked before any database is looked for.
  auto bad_sub = RunProcess(
      {HPTUNE_BINARY, "studies", "frob", "--db", *dir_ + "/missing.db"});
  EXPECT_EQ(bad_sub.exit_code, 64);
  EXPECT_THAT(bad_sub.err, HasSubstr("unknown subcommand \"frob\""));
  auto extra =
      RunProcess({HPTUNE_BINARY, "studies", "list", "x", "--db", Db()});
  EXPECT_EQ(extra.exit_code, 64);
  EXPECT_THAT(extra.err, HasSubstr("list takes 0 argument(s), got 1"));

  auto unknown = RunProcess({HPTUNE_BINARY, "frobnicate"});
  EXPECT_EQ(unknown.exit_code, 64);
  EXPECT_THAT(unknown.err, HasSubstr("unknown command \"frobnicate\""));
}

}  // namespace
}  // namespace hptune
