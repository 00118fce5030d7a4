// JobLock on a real file: one holder per job, released with its holder.
// flock locks belong to an open file description, so two Acquire calls in
// one process contend as two processes would.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "src/store/runner_lock.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

TEST(JobLockTest, ALiveHolderKeepsTheJobAndNamesItsPid) {
  const std::string db = testing::MakeTempDir() + "/hptune.db";
  absl::StatusOr<JobLock> first = JobLock::Acquire(db, "job_1");
  ASSERT_OK(first);
  EXPECT_THAT(JobLock::Acquire(db, "job_1"),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("job job_1 is being run by a live process "
                                 "(pid " +
                                 std::to_string(getpid()))));
  // Another job of the same database is another lock.
  EXPECT_OK(JobLock::Acquire(db, "job_2"));
}

TEST(JobLockTest, ReleasingRemovesTheFileAndFreesTheJob) {
  const std::string db = testing::MakeTempDir() + "/hptune.db";
  const std::string file = db + ".job-job_1.lock";
  {
    absl::StatusOr<JobLock> held = JobLock::Acquire(db, "job_1");
    ASSERT_OK(held);
    EXPECT_TRUE(std::filesystem::exists(file));
  }
  EXPECT_FALSE(std::filesystem::exists(file));
  absl::StatusOr<JobLock> again = JobLock::Acquire(db, "job_1");
  EXPECT_OK(again);
  // Moved, it is held once and released once.
  std::optional<JobLock> moved(*std::move(again));
  EXPECT_THAT(JobLock::Acquire(db, "job_1"),
              StatusHasCode(absl::StatusCode::kUnavailable));
  moved.reset();
  EXPECT_OK(JobLock::Acquire(db, "job_1"));
}

TEST(JobLockTest, AJobIdThatIsAPathIsRefused) {
  EXPECT_THAT(JobLock::Acquire("/tmp/x.db", "../etc"),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace hptune::store
