// TrialAdmission: the running trials per user a server's job runners
// share (hptune serve --max-running-trials-per-user, issue 84).
#include "hptune/runner/trial_admission.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace hptune::runner {
namespace {

constexpr int64_t kAlice = 64101;
constexpr int64_t kBob = 64102;

TEST(TrialAdmissionTest, EachUserRunsAtMostTheLimit) {
  TrialAdmission admission(2);
  std::optional<TrialAdmission::Ticket> a1 = admission.TryAdmit(kAlice);
  std::optional<TrialAdmission::Ticket> a2 = admission.TryAdmit(kAlice);
  ASSERT_TRUE(a1 && a2);
  EXPECT_FALSE(admission.TryAdmit(kAlice));
  EXPECT_EQ(admission.Running(kAlice), 2);
  // Another user has places of their own.
  std::optional<TrialAdmission::Ticket> b1 = admission.TryAdmit(kBob);
  std::optional<TrialAdmission::Ticket> b2 = admission.TryAdmit(kBob);
  EXPECT_TRUE(b1 && b2);
  EXPECT_FALSE(admission.TryAdmit(kBob));
}

TEST(TrialAdmissionTest, AnUnknownOwnerRootAndTheServersUserAreNotLimited) {
  constexpr int64_t kServer = 1000;
  TrialAdmission admission(1, kServer);
  std::vector<TrialAdmission::Ticket> held;
  for (int64_t uid : {int64_t{-1}, int64_t{0}, kServer}) {
    for (int i = 0; i < 5; ++i) {
      std::optional<TrialAdmission::Ticket> ticket = admission.TryAdmit(uid);
      ASSERT_TRUE(ticket) << "uid " << uid;
      held.push_back(*std::move(ticket));
    }
    EXPECT_EQ(admission.Running(uid), 0);
  }
  EXPECT_TRUE(admission.TryAdmit(kAlice));
}

TEST(TrialAdmissionTest, NoLimitAdmitsEveryone) {
  TrialAdmission admission(0);
  std::vector<TrialAdmission::Ticket> held;
  for (int i = 0; i < 100; ++i) {
    std::optional<TrialAdmission::Ticket> ticket = admission.TryAdmit(kAlice);
    ASSERT_TRUE(ticket);
    held.push_back(*std::move(ticket));
  }
}

TEST(TrialAdmissionTest, AReleasedPlaceAdmitsTheNextTrialOnce) {
  TrialAdmission admission(1);
  std::optional<TrialAdmission::Ticket> first = admission.TryAdmit(kAlice);
  ASSERT_TRUE(first);
  EXPECT_FALSE(admission.TryAdmit(kAlice));
  // Moving a ticket keeps its one place; only its last holder gives it back.
  TrialAdmission::Ticket moved = *std::move(first);
  first.reset();
  EXPECT_EQ(admission.Running(kAlice), 1);
  EXPECT_FALSE(admission.TryAdmit(kAlice));
  moved = TrialAdmission::Ticket();
  EXPECT_EQ(admission.Running(kAlice), 0);
  std::optional<TrialAdmission::Ticket> next = admission.TryAdmit(kAlice);
  EXPECT_TRUE(next);
  EXPECT_FALSE(admission.TryAdmit(kAlice));
}

// A place that frees goes to the runner that waited longest, not back to
// the one whose trial ended; the line does not hold back places it is not
// owed, and a runner that leaves gives up its turn.
TEST(TrialAdmissionTest, AFreedPlaceGoesToTheRunnerWaitingLongest) {
  TrialAdmission admission(2);
  TrialAdmission::Waiter first_job(&admission, kAlice);
  TrialAdmission::Waiter second_job(&admission, kAlice);
  std::optional<TrialAdmission::Ticket> a1 = first_job.TryAdmit();
  std::optional<TrialAdmission::Ticket> a2 = first_job.TryAdmit();
  ASSERT_TRUE(a1 && a2);
  EXPECT_FALSE(second_job.TryAdmit());  // Now in line.
  EXPECT_EQ(admission.Waiting(kAlice), 1);

  a1.reset();
  EXPECT_FALSE(first_job.TryAdmit());  // Owed to second_job.
  EXPECT_FALSE(admission.TryAdmit(kAlice));
  std::optional<TrialAdmission::Ticket> b1 = second_job.TryAdmit();
  ASSERT_TRUE(b1);
  // first_job waits in line now, behind no one.
  a2.reset();
  {
    TrialAdmission::Waiter third_job(&admission, kAlice);
    EXPECT_FALSE(third_job.TryAdmit());
    EXPECT_EQ(admission.Waiting(kAlice), 2);
  }
  EXPECT_EQ(admission.Waiting(kAlice), 1);
  std::optional<TrialAdmission::Ticket> a3 = first_job.TryAdmit();
  EXPECT_TRUE(a3);
  EXPECT_EQ(admission.Waiting(kAlice), 0);
  EXPECT_EQ(admission.Running(kAlice), 2);
}

// Two places free and two runners in line: the second need not wait for
// the first to take its place.
TEST(TrialAdmissionTest, TheLineHoldsBackOnlyThePlacesItIsOwed) {
  TrialAdmission admission(2);
  std::optional<TrialAdmission::Ticket> h1 = admission.TryAdmit(kAlice);
  std::optional<TrialAdmission::Ticket> h2 = admission.TryAdmit(kAlice);
  TrialAdmission::Waiter first(&admission, kAlice);
  TrialAdmission::Waiter second(&admission, kAlice);
  EXPECT_FALSE(first.TryAdmit());
  EXPECT_FALSE(second.TryAdmit());
  h1.reset();
  h2.reset();
  std::optional<TrialAdmission::Ticket> s = second.TryAdmit();
  EXPECT_TRUE(s);
  EXPECT_FALSE(admission.TryAdmit(kAlice));  // The other is first's.
  std::optional<TrialAdmission::Ticket> f = first.TryAdmit();
  EXPECT_TRUE(f);
  // Without an admission, a waiter admits everything.
  TrialAdmission::Waiter unlimited(nullptr, kAlice);
  EXPECT_TRUE(unlimited.TryAdmit());
}

// Runners on several threads, as a server's: a place another thread gives
// back lets a waiting one in, and no moment sees more than the limit.
TEST(TrialAdmissionTest, ThreadsNeverHoldMoreThanTheLimitAndAllGetIn) {
  constexpr int kLimit = 3;
  constexpr int kThreads = 6;
  constexpr int kTrialsEach = 200;
  TrialAdmission admission(kLimit);
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
  std::atomic<int> ran{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      TrialAdmission::Waiter waiter(&admission, kAlice);
      for (int trial = 0; trial < kTrialsEach; ++trial) {
        std::optional<TrialAdmission::Ticket> ticket;
        while (!(ticket = waiter.TryAdmit())) std::this_thread::yield();
        const int now = inside.fetch_add(1) + 1;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::yield();
        inside.fetch_sub(1);
        ticket.reset();
        ran.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(ran.load(), kThreads * kTrialsEach);
  EXPECT_LE(most.load(), kLimit);
  EXPECT_GE(most.load(), 1);
  EXPECT_EQ(admission.Running(kAlice), 0);
  EXPECT_EQ(admission.Waiting(kAlice), 0);
}

}  // namespace
}  // namespace hptune::runner
