#include "src/engine/study_locks.h"

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace hptune::engine {
namespace {

constexpr auto kDeadline = std::chrono::seconds(30);

TEST(StudyLocksTest, DifferentStudiesDoNotWaitForEachOther) {
  StudyLocks locks;
  StudyLock a(locks, "a");
  auto other = std::async(std::launch::async, [&] {
    StudyLock b(locks, "b");
    return b.study();
  });
  ASSERT_EQ(other.wait_for(kDeadline), std::future_status::ready);
  EXPECT_EQ(other.get(), "b");
}

TEST(StudyLocksTest, OneStudysCallsTakeTurns) {
  StudyLocks locks;
  std::atomic<bool> entered{false};
  std::thread waiter;
  {
    StudyLock held(locks, "a");
    waiter = std::thread([&] {
      StudyLock second(locks, "a");
      entered = true;
    });
    // The waiter has entered the table: it is blocked on "a" or about to be.
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    while (locks.users("a") < 2 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    ASSERT_EQ(locks.users("a"), 2);
    EXPECT_FALSE(entered);
  }
  waiter.join();
  EXPECT_TRUE(entered);
  EXPECT_EQ(locks.users("a"), 0);
}

TEST(StudyLocksTest, TheTableKeepsOnlyStudiesInUse) {
  StudyLocks locks;
  StudyLock kept(locks, "kept");
  for (int i = 0; i < 1000; ++i) {
    StudyLock lock(locks, "study_" + std::to_string(i));
    EXPECT_EQ(locks.size(), 2u);
  }
  EXPECT_EQ(locks.size(), 1u);
  EXPECT_EQ(locks.users("kept"), 1);
  EXPECT_EQ(locks.users("study_1"), 0);
}

}  // namespace
}  // namespace hptune::engine
