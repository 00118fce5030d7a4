// SqliteStore across real processes (store_writer children, no shell):
// - a writer killed with SIGKILL mid-writes loses no commit it reported and
//   leaves a file that passes integrity_check, with every batch all-or-none;
// - several processes plus threads writing one study concurrently all
//   succeed, with exact counts and dense, unique trial numbers.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/store/sqlite_store.h"
#include "tests/store/store_test_util.h"
#include "tests/store/store_workload.h"

extern char** environ;

namespace hptune::store {
namespace {

using ::hptune::store::test::MakeStudy;
using ::hptune::store::test::RawDb;
using ::hptune::store::test::TempDir;
using ::testing::ElementsAre;
using SteadyTime = std::chrono::steady_clock::time_point;

SteadyTime DeadlineIn(std::chrono::seconds d) {
  return std::chrono::steady_clock::now() + d;
}

// A store_writer child with its stdout on a pipe. Killed and reaped when
// dropped, so a failing test leaves no process behind.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    std::vector<std::string> argv_storage = {STORE_WRITER_PATH};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : argv_storage) argv.push_back(arg.data());
    argv.push_back(nullptr);

    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe2 failed";
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    const int rc =
        posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    fd_ = fds[0];
    if (rc != 0) {
      ADD_FAILURE() << "posix_spawn " << argv[0] << " failed: " << rc;
      pid_ = -1;
    }
  }

  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      Wait();
    }
    if (fd_ >= 0) close(fd_);
  }

  // The next complete line of the child's stdout; nullopt at end of file
  // (a partial last line is dropped) or at the deadline (timed_out() set).
  std::optional<std::string> ReadLine(SteadyTime deadline) {
    while (true) {
      const size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return line;
      }
      if (eof_ || fd_ < 0) return std::nullopt;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out_ = true;
        return std::nullopt;
      }
      pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[4096];
      const ssize_t n = read(fd_, chunk, sizeof(chunk));
      if (n <= 0) {
        eof_ = true;
      } else {
        buffer_.append(chunk, n);
      }
    }
  }

  void Kill() { kill(pid_, SIGKILL); }

  // Reaps the child; its wait status.
  int Wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

  bool timed_out() const { return timed_out_; }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buffer_;
  bool eof_ = false;
  bool timed_out_ = false;
};

// Waits for a `store_writer trials` child: it must print only "ok" (no
// error of any kind, "database is locked" included) and exit 0.
void ExpectWriterSucceeded(Child& child, SteadyTime deadline) {
  std::vector<std::string> output;
  while (std::optional<std::string> line = child.ReadLine(deadline)) {
    output.push_back(*line);
  }
  ASSERT_FALSE(child.timed_out());
  EXPECT_THAT(output, ElementsAre("ok"));
  const int status = child.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(StoreProcessTest, KilledWriterLosesNoReportedCommit) {
  TempDir dir;
  const std::string path = dir.File("hptune.db");
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> store,
                         SqliteStore::Open(path, hptune::SystemClock()));
    ASSERT_OK(store->CreateStudy(MakeStudy("crash")));
    Trial trial;
    trial.state = TrialState::kActive;
    ASSERT_OK(store->AddTrials("crash", {trial}, std::nullopt));
  }

  std::set<int64_t> reported;
  int64_t next_step = 0;
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Child child({"measure", path, "crash", "1", std::to_string(next_step)});
    // Kill after a different number of commits each round; the writer keeps
    // writing meanwhile, so the kill lands at an arbitrary point.
    const int kill_after = 25 + 17 * round;
    const SteadyTime deadline = DeadlineIn(std::chrono::seconds(60));
    for (int seen = 0; seen < kill_after; ++seen) {
      std::optional<std::string> line = child.ReadLine(deadline);
      ASSERT_TRUE(line.has_value())
          << (child.timed_out() ? "timed out" : "writer exited early");
      ASSERT_THAT(*line, ::testing::Not(::testing::StartsWith("error")));
      reported.insert(std::stoll(*line));
    }
    child.Kill();
    const int status = child.Wait();
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    // Lines written before the kill were reported after their commits too.
    while (std::optional<std::string> line = child.ReadLine(deadline)) {
      reported.insert(std::stoll(*line));
    }

    EXPECT_THAT(RawDb(path).Query("PRAGMA integrity_check"), ElementsAre("ok"));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> store,
                         SqliteStore::Open(path, hptune::SystemClock()));
    ASSERT_OK_AND_ASSIGN(Trial trial, store->GetTrial("crash", 1));
    std::set<int64_t> stored;
    for (size_t i = 0; i < trial.measurements.size(); ++i) {
      // Sequential writes: what is stored is exactly steps 0 .. n-1.
      ASSERT_EQ(trial.measurements[i].step, static_cast<int64_t>(i));
      stored.insert(trial.measurements[i].step);
    }
    for (int64_t step : reported) {
      ASSERT_TRUE(stored.contains(step))
          << "reported step " << step << " was lost";
    }
    // Batches of 20 trials are all-or-none, with their designer state.
    ASSERT_OK_AND_ASSIGN(std::vector<Trial> trials, store->ListTrials("crash"));
    EXPECT_EQ((trials.size() - 1) % 20, 0u) << trials.size() << " trials";
    if (trials.size() > 1) {
      const int64_t last_batch_step =
          trials.back().parameters.at("x").AsInteger();
      EXPECT_THAT(
          store->GetDesignerState("crash"),
          test::IsOkAndHolds("step=" + std::to_string(last_batch_step)));
    }
    next_step = static_cast<int64_t>(trial.measurements.size());
  }
  EXPECT_GE(reported.size(), 25u + 42 + 59 + 76 + 93);
}

TEST(StoreProcessTest, ConcurrentProcessesAndThreadsWriteOneStudy) {
  constexpr int kProcesses = 4;
  constexpr int kThreadsPerProcess = 2;
  constexpr int kParentThreads = 2;
  constexpr int kTrials = 15;
  constexpr int kMeasurements = 3;
  TempDir dir;
  const std::string path = dir.File("hptune.db");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> store,
                       SqliteStore::Open(path, hptune::SystemClock()));
  ASSERT_OK(store->CreateStudy(MakeStudy("shared")));

  std::vector<std::unique_ptr<Child>> children;
  for (int i = 0; i < kProcesses; ++i) {
    children.push_back(std::make_unique<Child>(std::vector<std::string>{
        "trials", path, "shared", std::to_string(kThreadsPerProcess),
        std::to_string(kTrials), std::to_string(kMeasurements)}));
  }
  std::vector<absl::Status> results(kParentThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kParentThreads; ++i) {
    threads.emplace_back([&, i] {
      results[i] = test::RunTrialWorkload(*store, "shared",
                                          "parent-" + std::to_string(i),
                                          kTrials, kMeasurements);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const absl::Status& result : results) EXPECT_OK(result);

  const SteadyTime deadline = DeadlineIn(std::chrono::seconds(120));
  for (auto& child : children) ExpectWriterSucceeded(*child, deadline);

  test::ExpectWorkloadHistory(*store, "shared",
                              kProcesses * kThreadsPerProcess + kParentThreads,
                              kTrials, kMeasurements);
  EXPECT_THAT(RawDb(path).Query("PRAGMA integrity_check"), ElementsAre("ok"));
}

TEST(StoreProcessTest, ProcessesCreatingOneFileTogetherAllSucceed) {
  constexpr int kProcesses = 4;
  constexpr int kTrials = 5;
  TempDir dir;
  const std::string path = dir.File("fresh.db");  // Does not exist yet.
  std::vector<std::unique_ptr<Child>> children;
  for (int i = 0; i < kProcesses; ++i) {
    children.push_back(std::make_unique<Child>(std::vector<std::string>{
        "trials", path, "fresh", "1", std::to_string(kTrials), "1"}));
  }
  const SteadyTime deadline = DeadlineIn(std::chrono::seconds(120));
  for (auto& child : children) ExpectWriterSucceeded(*child, deadline);

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> store,
                       SqliteStore::Open(path, hptune::SystemClock()));
  test::ExpectWorkloadHistory(*store, "fresh", kProcesses, kTrials, 1);
  EXPECT_THAT(store->ListStudies(), test::IsOkAndHolds(::testing::SizeIs(1)));
  EXPECT_THAT(RawDb(path).Query("PRAGMA integrity_check"), ElementsAre("ok"));
}

}  // namespace
}  // namespace hptune::store
