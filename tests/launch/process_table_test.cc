// ProcessTable on a directory laid out as /proc, on the real machine and on
// FakeEnv: stat lines whose command name holds spaces and ')', the
// environment's entries matched whole or by prefix, and a process that ends
// between the listing and the read of its files.
#include "src/launch/process_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "hptune/env/env_wrapper.h"
#include "tests/testing/real_and_fake_env.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using std::string_literals::operator""s;

// A stat line of process `pid` with its state, parent, group and start
// time where stat(5) puts them.
std::string StatLine(int pid, std::string_view comm, char state, int parent,
                     int group, int start_time) {
  return absl::StrCat(pid, " (", std::string(comm), ") ", std::string(1, state),
                      " ", parent, " ", group,
                      " 1 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 1 0 ", start_time,
                      " 12345 67 18446744073709551615\n");
}

TEST(ParseProcessStatTest, TheFieldsStartAfterTheLastParenthesis) {
  const std::optional<ProcessStat> stat =
      ParseProcessStat(StatLine(42, "a) S 9 9 (b", 'Z', 7, 40, 31337));
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->state, 'Z');
  EXPECT_EQ(stat->parent, 7);
  EXPECT_EQ(stat->group, 40);
  EXPECT_EQ(stat->start_time, 31337u);
  EXPECT_TRUE(stat->Ended());
}

TEST(ParseProcessStatTest, AShortOrUnclosedLineIsNoStat) {
  EXPECT_FALSE(ParseProcessStat("42 (sleep S 1 42").has_value());
  EXPECT_FALSE(ParseProcessStat("42 (sleep) S 1").has_value());
  EXPECT_FALSE(ParseProcessStat("").has_value());
  const std::optional<ProcessStat> no_start = ParseProcessStat("4 (x) R 1 4");
  ASSERT_TRUE(no_start.has_value());
  EXPECT_EQ(no_start->start_time, 0u);
  EXPECT_FALSE(no_start->Ended());
}

TEST(EnvironmentHoldsTest, AnEntryMatchesWholeOrByPrefix) {
  const std::string text = "A=1\0HPTUNE_REPLICA=/runs/j/1/m.log\0B=\0"s;
  EXPECT_TRUE(EnvironmentHolds(text, "HPTUNE_REPLICA=/runs/j/1/m.log",
                               EntryMatch::kWhole));
  EXPECT_FALSE(
      EnvironmentHolds(text, "HPTUNE_REPLICA=/runs/j/", EntryMatch::kWhole));
  EXPECT_TRUE(
      EnvironmentHolds(text, "HPTUNE_REPLICA=/runs/j/", EntryMatch::kPrefix));
  EXPECT_FALSE(
      EnvironmentHolds(text, "HPTUNE_REPLICA=/runs/k/", EntryMatch::kPrefix));
  EXPECT_TRUE(EnvironmentHolds(text, "B=", EntryMatch::kWhole));
  EXPECT_FALSE(EnvironmentHolds("", "A=1", EntryMatch::kPrefix));
}

class ProcessTableTest : public testing::RealAndFakeEnvTest {
 protected:
  void SetUp() override {
    RealAndFakeEnvTest::SetUp();
    proc_ = dir_ / "proc";
    // Not processes: ignored.
    ASSERT_OK(env().CreatePrivateDirectories(proc_ / "self"));
    ASSERT_OK(env().WriteFileAtomically(proc_ / "meminfo", "MemTotal: 1\n"));
  }
  void AddProcess(int pid, std::string_view comm, char state, int parent,
                  int group, std::string environ_text = "") {
    const std::filesystem::path dir = proc_ / std::to_string(pid);
    ASSERT_OK(env().CreatePrivateDirectories(dir));
    ASSERT_OK(env().WriteFileAtomically(
        dir / "stat", StatLine(pid, comm, state, parent, group, pid * 10)));
    ASSERT_OK(env().WriteFileAtomically(dir / "environ", environ_text));
  }

  std::filesystem::path proc_;
};

INSTANTIATE_TEST_SUITE_P(RealAndFake, ProcessTableTest, ::testing::Bool());

TEST_P(ProcessTableTest, ListsProcessesByPidAndReadsTheirStat) {
  AddProcess(100, "python3", 'S', 1, 100);
  AddProcess(7, "sh", 'R', 1, 7);
  AddProcess(12, "a b)", 'Z', 7, 7);
  const ProcessTable table(env(), proc_);
  EXPECT_THAT(table.Pids(),
              hptune_testing::IsOkAndHolds(ElementsAre(7, 12, 100)));
  const std::optional<ProcessStat> zombie = table.StatOf(12);
  ASSERT_TRUE(zombie.has_value());
  EXPECT_EQ(zombie->parent, 7);
  EXPECT_EQ(zombie->start_time, 120u);
  EXPECT_FALSE(table.StatOf(13).has_value());
  EXPECT_THAT(table.ZombieChildrenOf(7), ElementsAre(12));
  EXPECT_THAT(table.ZombieChildrenOf(1), IsEmpty());
}

TEST_P(ProcessTableTest, AGroupOfZombiesHasNoLiveProcess) {
  AddProcess(20, "trainer", 'Z', 1, 20);
  AddProcess(21, "loader", 'X', 1, 20);
  AddProcess(30, "trainer", 'D', 1, 30);
  const ProcessTable table(env(), proc_);
  EXPECT_FALSE(table.GroupHasLiveProcess(20));
  EXPECT_TRUE(table.GroupHasLiveProcess(30));
  EXPECT_FALSE(table.GroupHasLiveProcess(40));
  // A table it cannot list: a wait for the group must not end on a guess.
  EXPECT_TRUE(ProcessTable(env(), dir_ / "no-proc").GroupHasLiveProcess(40));
}

TEST_P(ProcessTableTest, FindsTheLiveProcessesWhoseEnvironmentHoldsAnEntry) {
  const std::string marker = "HPTUNE_REPLICA=/runs/j/1/master-0.log";
  AddProcess(50, "self", 'S', 1, 50, marker + '\0');
  AddProcess(51, "trainer", 'S', 1, 51, "A=1\0"s + marker + '\0');
  AddProcess(52, "ended", 'Z', 1, 51, marker + '\0');
  AddProcess(53, "other", 'S', 1, 53, "HPTUNE_REPLICA=/runs/k/1/m.log\0");
  const ProcessTable table(env(), proc_);
  EXPECT_THAT(table.LiveProcessesWith(marker, EntryMatch::kWhole, 50),
              ElementsAre(51));
  EXPECT_THAT(
      table.LiveProcessesWith("HPTUNE_REPLICA=/runs/", EntryMatch::kPrefix, 0),
      ElementsAre(50, 51, 53));
  EXPECT_FALSE(table.EnvironmentHas(60, marker, EntryMatch::kWhole));
}

// Ends process `pid` (removes its files) once the table has been listed:
// what the kernel does to a process that exits during a walk.
class EndsAfterListing : public EnvWrapper {
 public:
  EndsAfterListing(Env& target, std::filesystem::path dir)
      : EnvWrapper(target), dir_(std::move(dir)) {}
  absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(
      const std::filesystem::path& dir) override {
    absl::StatusOr<std::vector<DirectoryEntry>> listed =
        EnvWrapper::ListDirectory(dir);
    for (const char* file : {"stat", "environ"}) {
      target().Remove(dir_ / file).IgnoreError();
    }
    target().Remove(dir_).IgnoreError();
    return listed;
  }

 private:
  std::filesystem::path dir_;
};

TEST_P(ProcessTableTest, AProcessThatEndsDuringTheWalkIsSkipped) {
  const std::string marker = "HPTUNE_REPLICA=/runs/j/1/worker-0.log";
  AddProcess(70, "sh", 'S', 1, 70);
  AddProcess(71, "worker", 'Z', 70, 71, marker + '\0');
  AddProcess(72, "worker", 'S', 70, 72, marker + '\0');
  EndsAfterListing ending(env(), proc_ / "72");
  const ProcessTable table(ending, proc_);
  EXPECT_THAT(table.LiveProcessesWith(marker, EntryMatch::kWhole, 0),
              IsEmpty());
  EXPECT_FALSE(table.GroupHasLiveProcess(72));
  EXPECT_THAT(table.ZombieChildrenOf(70), ElementsAre(71));
}

}  // namespace
}  // namespace hptune::launch
