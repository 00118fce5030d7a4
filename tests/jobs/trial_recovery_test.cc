// RecoverTrialFiles on the real file system, with a disk that fills up
// (EnvWrapper): when moving the lost run's log aside fails, the reports it
// held are already stored, the log stays where it was, the error names the
// file and the reason, and a later take-over finishes the job without
// storing a report twice.
#include "src/jobs/trial_recovery.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/job.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/study.h"
#include "hptune/engine/engine.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "hptune/env/env_wrapper.h"
#include "hptune/launch/replica_env.h"
#include "src/store/memory_store.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::jobs {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The machine, but every rename fails as on a full disk.
class FullDisk : public EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  absl::Status Rename(const std::filesystem::path& from,
                      const std::filesystem::path& to) override {
    ++renames;
    return absl::ErrnoToStatus(
        ENOSPC,
        absl::StrCat("cannot rename ", from.string(), " to ", to.string()));
  }
  int renames = 0;
};

class TrialRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StudySpec spec;
    spec.SetSingleMetric("loss");
    spec.max_trials = 2;
    spec.algorithm = Algorithm::kRandomSearch;
    ParameterSpec x;
    x.name = "x";
    x.type = ParameterType::kDouble;
    x.min_value = 0;
    x.max_value = 1;
    spec.search_space = SearchSpace({x});
    ASSERT_OK(engine_.CreateStudy("job", spec).status());
    auto suggested = engine_.SuggestTrials("job", 1, "job/slot-0");
    ASSERT_OK(suggested.status());
    ASSERT_EQ(suggested->trials.size(), 1u);
    job_.job_id = "job";
    job_.study_name = "job";
    job_.state = JobState::kRunning;
    const std::filesystem::path dir = RunsLayout(runs_).TrialDir("job", 1);
    ASSERT_OK(DefaultEnv().CreatePrivateDirectories(dir));
    log_ = launch::ReplicaLogPath(dir, TaskType::kMaster, 0, false);
    // What the dead runner's trainer printed: two reports.
    ASSERT_OK(DefaultEnv().WriteFileAtomically(
        log_, "loss=0.5 step=1\nloss=0.4 step=2\n"));
  }

  size_t StoredReports() {
    absl::StatusOr<std::vector<Trial>> trials = engine_.ListTrials("job");
    EXPECT_OK(trials.status());
    return trials.ok() ? trials->front().measurements.size() : 0;
  }

  FakeClock clock_;
  store::MemoryStore store_{clock_};
  engine::TuningEngine engine_{store_, clock_};
  const std::string runs_ = testing::MakeTempDir();
  JobRecord job_;
  JobSpec spec_{.job_id = "job"};
  std::filesystem::path log_;
};

TEST_F(TrialRecoveryTest, AFullDiskLosesNoReportAndNamesTheFile) {
  FullDisk full(DefaultEnv());
  EXPECT_THAT(RecoverTrialFiles(engine_, runs_, job_, spec_, full),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr("cannot rename " + log_.string()),
                             HasSubstr("No space left on device"))));
  EXPECT_EQ(full.renames, 1);
  // The reports were stored before the move failed; the log is untouched.
  EXPECT_EQ(StoredReports(), 2u);
  EXPECT_TRUE(DefaultEnv().Exists(log_));
  EXPECT_FALSE(DefaultEnv().Exists(log_.string() + ".1"));

  // With room again, the next take-over moves the log aside and stores
  // nothing twice.
  ASSERT_OK(RecoverTrialFiles(engine_, runs_, job_, spec_, DefaultEnv()));
  EXPECT_EQ(StoredReports(), 2u);
  EXPECT_FALSE(DefaultEnv().Exists(log_));
  EXPECT_TRUE(DefaultEnv().Exists(log_.string() + ".1"));
}

}  // namespace
}  // namespace hptune::jobs
