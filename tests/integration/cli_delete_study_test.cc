// `hptune studies delete` through the real binary on a real SQLite file:
// the study and its trials leave the file, a study whose job runs stays
// (the message names the job and its state), and a file a server holds is
// refused.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/store/open_store.h"
#include "src/store/runner_lock.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
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

class CliDeleteStudyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    auto store = store::OpenSqliteStore(Db(), hptune::SystemClock());
    ASSERT_TRUE(store.ok()) << store.status();
    // Job "nightly" tunes study "running"; the study "nightly" is no
    // job's, so a check by job ID instead of study would mix them up.
    for (const char* name : {"spare", "running", "nightly"}) {
      ASSERT_TRUE((*store)->CreateStudy(Study(name)).ok());
      Trial trial;
      trial.state = TrialState::kSucceeded;
      trial.parameters = {{"x", ParameterValue::Double(0.5)}};
      trial.final_measurement =
          Measurement{.step = 1, .metrics = {{"loss", 0.25}}};
      ASSERT_TRUE((*store)->AddTrials(name, {trial}, std::nullopt).ok());
    }
    JobRecord job;
    job.job_id = "nightly";
    job.study_name = "running";
    job.training_input_json = R"({"hyperparameters": {}})";
    job.state = JobState::kRunning;
    ASSERT_TRUE((*store)->CreateJob(job).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Db() const { return dir_ + "/h.db"; }
  bool Has(const std::string& study) {
    auto store = store::OpenSqliteStore(Db(), hptune::SystemClock());
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() && (*store)->GetStudy(study).ok();
  }

  std::string dir_;
};

TEST_F(CliDeleteStudyTest, DeletesTheStudyAndItsTrialsFromTheFile) {
  auto r =
      RunProcess({HPTUNE_BINARY, "studies", "delete", "spare", "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("deleted study spare"));
  EXPECT_FALSE(Has("spare"));
  EXPECT_TRUE(Has("running"));
  auto store = store::OpenSqliteStore(Db(), hptune::SystemClock());
  ASSERT_TRUE(store.ok());
  auto trials = (*store)->ListTrialSummaries("spare");
  EXPECT_FALSE(trials.ok() && !trials->empty());
  auto again =
      RunProcess({HPTUNE_BINARY, "studies", "delete", "spare", "--db", Db()});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_THAT(again.err, HasSubstr("spare"));
}

TEST_F(CliDeleteStudyTest, AStudyWhoseJobRunsIsKeptAndTheJobNamed) {
  auto r =
      RunProcess({HPTUNE_BINARY, "studies", "delete", "running", "--db", Db()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("study \"running\" belongs to job "
                               "\"nightly\", which is RUNNING"));
  EXPECT_THAT(r.err, HasSubstr("cancel the job first"));
  EXPECT_TRUE(Has("running"));
}

TEST_F(CliDeleteStudyTest, AStudyNamedLikeARunningJobButNotItsIsDeleted) {
  auto r =
      RunProcess({HPTUNE_BINARY, "studies", "delete", "nightly", "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Has("nightly"));
  EXPECT_TRUE(Has("running"));
}

TEST_F(CliDeleteStudyTest, AFileAServerHoldsIsRefused) {
  auto lock = store::RunnerLock::Acquire(DefaultEnv(), Db(),
                                         store::RunnerLock::Holder::kServer);
  ASSERT_TRUE(lock.ok()) << lock.status();
  auto r =
      RunProcess({HPTUNE_BINARY, "studies", "delete", "spare", "--db", Db()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("\"" + Db() + "\" is served by hptune serve"));
  EXPECT_THAT(r.err, HasSubstr("hptune studies delete spare --server ADDR"));
  EXPECT_TRUE(Has("spare"));
}

TEST_F(CliDeleteStudyTest, TakesExactlyOneStudy) {
  auto r = RunProcess({HPTUNE_BINARY, "studies", "delete", "--db", Db()});
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_THAT(r.err, HasSubstr("delete takes 1 argument(s), got 0"));
}

}  // namespace
}  // namespace hptune
