// JobLock on a real file: one holder per job, released with its holder.
// flock locks belong to an open file description, so two Acquire calls in
// one process contend as two processes would. RunnerLock on FakeEnv's lock
// table: who holds the database is named as on a disk.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "hptune/env/env.h"
#include "src/store/runner_lock.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

TEST(JobLockTest, ALiveHolderKeepsTheJobAndNamesItsPid) {
  const std::string db = testing::MakeTempDir() + "/hptune.db";
  absl::StatusOr<JobLock> first = JobLock::Acquire(DefaultEnv(), db, "job_1");
  ASSERT_OK(first);
  EXPECT_THAT(JobLock::Acquire(DefaultEnv(), db, "job_1"),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("job job_1 is being run by a live process "
                                 "(pid " +
                                 std::to_string(getpid()))));
  // Another job of the same database is another lock.
  EXPECT_OK(JobLock::Acquire(DefaultEnv(), db, "job_2"));
}

TEST(JobLockTest, ReleasingRemovesTheFileAndFreesTheJob) {
  const std::string db = testing::MakeTempDir() + "/hptune.db";
  const std::string file = db + ".job-job_1.lock";
  {
    absl::StatusOr<JobLock> held = JobLock::Acquire(DefaultEnv(), db, "job_1");
    ASSERT_OK(held);
    EXPECT_TRUE(std::filesystem::exists(file));
  }
  EXPECT_FALSE(std::filesystem::exists(file));
  absl::StatusOr<JobLock> again = JobLock::Acquire(DefaultEnv(), db, "job_1");
  EXPECT_OK(again);
  // Moved, it is held once and released once.
  std::optional<JobLock> moved(*std::move(again));
  EXPECT_THAT(JobLock::Acquire(DefaultEnv(), db, "job_1"),
              StatusHasCode(absl::StatusCode::kUnavailable));
  moved.reset();
  EXPECT_OK(JobLock::Acquire(DefaultEnv(), db, "job_1"));
}

TEST(JobLockTest, AJobIdThatIsAPathIsRefused) {
  EXPECT_THAT(JobLock::Acquire(DefaultEnv(), "/tmp/x.db", "../etc"),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
}

TEST(RunnerLockTest, EachRefusalNamesWhatHoldsTheDatabase) {
  testing::FakeEnv env;
  ASSERT_OK(env.CreatePrivateDirectories("/srv"));
  const std::string db = "/srv/hptune.db";
  using Holder = RunnerLock::Holder;
  {
    absl::StatusOr<RunnerLock> server =
        RunnerLock::Acquire(env, db, Holder::kServer);
    ASSERT_OK(server);
    EXPECT_THAT(
        RunnerLock::Acquire(env, db, Holder::kServer),
        StatusIs(absl::StatusCode::kUnavailable,
                 HasSubstr("is already served by another hptune "
                           "serve (lock file \"/srv/hptune.db.serve-lock")));
    EXPECT_THAT(
        RunnerLock::Acquire(env, db, Holder::kRun),
        StatusIs(absl::StatusCode::kUnavailable,
                 HasSubstr("\"/srv/hptune.db\" is served by hptune serve")));
  }
  absl::StatusOr<RunnerLock> run = RunnerLock::Acquire(env, db, Holder::kRun);
  ASSERT_OK(run);
  EXPECT_OK(RunnerLock::Acquire(env, db, Holder::kRun));
  EXPECT_THAT(RunnerLock::Acquire(env, db, Holder::kServer),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("is in use by hptune run")));
  EXPECT_THAT(RunnerLock::Acquire(env, "/none/hptune.db", Holder::kRun),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("cannot create lock file")));
}

TEST(JobLockTest, OnFakeEnvTheRefusalNamesTheHoldersPid) {
  testing::FakeEnv env;
  env.pid = 4242;
  ASSERT_OK(env.CreatePrivateDirectories("/srv"));
  absl::StatusOr<JobLock> first = JobLock::Acquire(env, "/srv/h.db", "job_1");
  ASSERT_OK(first);
  EXPECT_THAT(
      JobLock::Acquire(env, "/srv/h.db", "job_1"),
      StatusIs(
          absl::StatusCode::kUnavailable,
          HasSubstr("(pid 4242, lock file \"/srv/h.db.job-job_1.lock\")")));
}

}  // namespace
}  // namespace hptune::store
