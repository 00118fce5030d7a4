#include "tests/store/queued_writes.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/store/store_test_util.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store::test {
namespace {

using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;
using ::testing::SizeIs;

// Waits until `waiting` says `count` writes are queued, or fails after 60 s.
void WaitForQueuedWrites(const std::function<size_t()>& waiting, size_t count) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (waiting() < count) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << waiting() << " writes queued, waiting for " << count;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

void ExpectQueuedWritesEachGetTheirOwnAnswer(
    Store& store, const std::function<size_t()>& waiting,
    const std::function<void()>& fail_designer_state_inserts) {
  ASSERT_OK(store.CreateStudy(MakeStudy("study")));
  ASSERT_OK(store.AddTrials("study", {MakeTrial(0.1)}, std::nullopt).status());
  // A write that fails after its trial and event went in.
  fail_designer_state_inserts();

  // The first write holds the writer's connection until the others queue.
  std::latch entered(1), release(1);
  absl::StatusOr<Trial> held;
  std::thread holder([&] {
    held = store.UpdateTrial("study", 1, [&](Trial& t) {
      entered.count_down();
      release.wait();
      t.client_id = "held";
      return absl::OkStatus();
    });
  });
  entered.wait();
  absl::StatusOr<std::vector<Trial>> added_a, added_b, to_missing_study,
      failed_late;
  absl::StatusOr<Trial> missing_trial, refused;
  std::vector<std::thread> queued;
  queued.emplace_back([&] {
    added_a = store.AddTrials("study", {MakeTrial(0.2)}, std::nullopt);
  });
  queued.emplace_back([&] {
    to_missing_study =
        store.AddTrials("no_such_study", {MakeTrial(0.3)}, std::nullopt);
  });
  queued.emplace_back([&] {
    failed_late = store.AddTrials("study", {MakeTrial(0.5)}, "cursor=1");
  });
  queued.emplace_back([&] {
    missing_trial =
        store.UpdateTrial("study", 99, [](Trial&) { return absl::OkStatus(); });
  });
  queued.emplace_back([&] {
    refused = store.UpdateTrial("study", 1, [](Trial& t) {
      t.client_id = "refused";
      return absl::FailedPreconditionError("refused by its caller");
    });
  });
  queued.emplace_back([&] {
    added_b = store.AddTrials("study", {MakeTrial(0.4)}, std::nullopt);
  });
  WaitForQueuedWrites(waiting, 7);
  release.count_down();
  holder.join();
  for (std::thread& t : queued) t.join();

  ASSERT_OK(held.status());
  ASSERT_OK(added_a.status());
  ASSERT_OK(added_b.status());
  EXPECT_TRUE(absl::IsNotFound(to_missing_study.status()))
      << to_missing_study.status();
  EXPECT_THAT(std::string(to_missing_study.status().message()),
              ::testing::HasSubstr("no_such_study"));
  EXPECT_THAT(failed_late.status(),
              StatusIs(absl::StatusCode::kInternal,
                       ::testing::HasSubstr("injected failure")));
  EXPECT_TRUE(absl::IsNotFound(missing_trial.status()))
      << missing_trial.status();
  EXPECT_EQ(refused.status(),
            absl::FailedPreconditionError("refused by its caller"));
  EXPECT_EQ(waiting(), 0u);

  ASSERT_OK_AND_ASSIGN(std::vector<Trial> trials, store.ListTrials("study"));
  ASSERT_THAT(trials, SizeIs(3));
  EXPECT_EQ(trials[0].client_id, "held");
  std::vector<int64_t> numbers = {added_a->front().number,
                                  added_b->front().number};
  std::sort(numbers.begin(), numbers.end());
  EXPECT_EQ(numbers, (std::vector<int64_t>{2, 3}));
  // The study's creation and its 3 trials': none of the failed write's.
  EXPECT_THAT(store.ListEvents(0, 100), IsOkAndHolds(SizeIs(4)));
}

}  // namespace hptune::store::test
