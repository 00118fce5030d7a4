// `hptune store migrate` through the real binary: a SQLite file copied to
// a new one, the counts printed, the copy readable by `hptune studies`; a
// target that holds a study refused; a password in a URL in no output.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/env/clock.h"
#include "hptune/store/open_store.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using testing::RunProcess;

StudyRecord Study(const std::string& name) {
  StudyRecord study;
  study.name = name;
  study.spec.SetSingleMetric("loss", Goal::kMinimize);
  study.spec.search_space = SearchSpace({{.name = "x",
                                          .type = ParameterType::kDouble,
                                          .min_value = 0,
                                          .max_value = 1,
                                          .scale = ScaleType::kLinear}});
  return study;
}

class CliStoreMigrateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    auto store = store::OpenSqliteStore(Db("from.db"), SystemClock());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->CreateStudy(Study("mnist")).ok());
    Trial trial;
    trial.state = TrialState::kSucceeded;
    trial.parameters = {{"x", ParameterValue::Double(0.5)}};
    trial.final_measurement =
        Measurement{.step = 1, .metrics = {{"loss", 0.25}}};
    ASSERT_TRUE((*store)->AddTrials("mnist", {trial, trial}, "").ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Db(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

TEST_F(CliStoreMigrateTest, CopiesAFileAndPrintsTheRowsOfEachTable) {
  auto r = RunProcess({HPTUNE_BINARY, "store", "migrate", "--from",
                       "sqlite:" + Db("from.db"), "--to", Db("to.db")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("copied sqlite:" + Db("from.db")),
                           HasSubstr(" to " + Db("to.db")),
                           MatchesRegex("(.|\n)*  studies +1\n(.|\n)*"),
                           MatchesRegex("(.|\n)*  trials +2\n(.|\n)*")));
  auto list = RunProcess({HPTUNE_BINARY, "trials", "list", "--study", "mnist",
                          "--db", Db("to.db")});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("SUCCEEDED"));

  auto again = RunProcess({HPTUNE_BINARY, "store", "migrate", "--from",
                           Db("from.db"), "--to", Db("to.db")});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("is not empty: it holds 1 studies"));
}

TEST_F(CliStoreMigrateTest, APasswordInTheUrlIsInNoOutput) {
  auto r = RunProcess({HPTUNE_BINARY, "store", "migrate", "--from",
                       Db("from.db"), "--to",
                       "postgresql://hptune:hunter2@/h?host=" + dir_ +
                           "/none&password=hunter2"});
  EXPECT_EQ(r.exit_code, 69) << r.err;
  EXPECT_THAT(r.err,
              AllOf(HasSubstr("cannot connect"), Not(HasSubstr("hunter2"))));
  EXPECT_THAT(r.out, Not(HasSubstr("hunter2")));
}

TEST_F(CliStoreMigrateTest, NeedsBothUrls) {
  auto r = RunProcess({HPTUNE_BINARY, "store", "migrate", "--from", Db("a")});
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_THAT(r.err, HasSubstr("needs --from and --to"));
}

}  // namespace
}  // namespace hptune
