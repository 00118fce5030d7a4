// JobSlots: which slot a job's next trial runs in, and that its memory
// follows the slots in use rather than maxParallelTrials.
#include "src/runner/job_slots.h"

#include <climits>
#include <vector>

#include "gtest/gtest.h"
#include "hptune/core/trial.h"

namespace hptune::runner::internal {
namespace {

// Occupies the next free slot with no execution (the slots only hold it).
int Take(JobSlots& slots) {
  const int slot = slots.NextFree();
  slots.Occupy(slot, nullptr);
  return slot;
}

Trial ActiveIn(int64_t number, const std::string& client) {
  Trial t;
  t.number = number;
  t.state = TrialState::kActive;
  t.client_id = client;
  return t;
}

TEST(JobSlotsTest, HandsOutTheLowestFreeSlot) {
  JobSlots slots("job", 3);
  EXPECT_EQ(Take(slots), 0);
  EXPECT_EQ(Take(slots), 1);
  slots.Release(0);
  EXPECT_EQ(Take(slots), 0);
  EXPECT_EQ(Take(slots), 2);
  EXPECT_FALSE(slots.HasFree());
  slots.Release(1);
  EXPECT_TRUE(slots.HasFree());
  EXPECT_EQ(Take(slots), 1);
}

// The largest int as maxParallelTrials costs nothing up front: the
// constructor once filled a set with every slot (gigabytes, minutes).
TEST(JobSlotsTest, AHugeParallelismAllocatesOnlyTheSlotsUsed) {
  JobSlots slots("job", INT_MAX);
  for (int k = 0; k < 1000; ++k) ASSERT_EQ(Take(slots), k);
  EXPECT_TRUE(slots.HasFree());
  EXPECT_EQ(slots.running().size(), 1000u);
}

TEST(JobSlotsTest, AnUnfinishedTrialsSlotComesFirstAndIsSkippedAfter) {
  JobSlots slots("job", 4);
  slots.FindUnfinished(
      {ActiveIn(7, "job/slot-2"), ActiveIn(8, "other/slot-1")});
  EXPECT_TRUE(slots.AnyUnfinished());
  EXPECT_EQ(Take(slots), 2);
  EXPECT_TRUE(slots.TakeUnfinished(7));
  EXPECT_EQ(Take(slots), 0);
  EXPECT_EQ(Take(slots), 1);
  EXPECT_EQ(Take(slots), 3);
  EXPECT_FALSE(slots.HasFree());
}

TEST(JobSlotsTest, AnUnfinishedSlotBeyondTheParallelismIsTrimmedOnceUsed) {
  JobSlots slots("job", 1);
  slots.FindUnfinished({ActiveIn(3, "job/slot-5")});
  EXPECT_EQ(Take(slots), 5);
  ASSERT_TRUE(slots.TakeUnfinished(3));
  slots.Release(5);
  slots.Trim();
  EXPECT_EQ(Take(slots), 0);
  EXPECT_FALSE(slots.HasFree());
}

}  // namespace
}  // namespace hptune::runner::internal
