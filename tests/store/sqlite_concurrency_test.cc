// Concurrent writers in one process: many threads on one SqliteStore, and
// threads on two SqliteStore instances (two connections) on the same file.
// Every call must succeed (busy is waited out, never surfaced) and trial
// numbers must stay dense and unique. Also the store's group commits (of
// writes queued behind a running one, and of concurrent measurements) and
// its checkpoints off the callers' path.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/store/sqlite_store.h"
#include "tests/store/queued_writes.h"
#include "tests/store/store_test_util.h"
#include "tests/store/store_workload.h"

namespace hptune::store {
namespace {

using ::hptune::store::test::MakeMeasurement;
using ::hptune::store::test::MakeStudy;
using ::hptune::store::test::MakeTrial;
using ::hptune::store::test::RawDb;
using ::hptune::store::test::RunTrialWorkload;
using ::hptune::store::test::TempDir;
using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;
using ::testing::SizeIs;

constexpr int kTrialsPerThread = 20;
constexpr int kMeasurements = 3;

// Runs the workload on `stores[i % stores.size()]` from `threads` threads.
void RunThreads(const std::vector<Store*>& stores, int threads) {
  std::vector<absl::Status> results(threads);
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&, i] {
      results[i] = RunTrialWorkload(*stores[i % stores.size()], "study",
                                    "thread-" + std::to_string(i),
                                    kTrialsPerThread, kMeasurements);
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (const absl::Status& result : results) EXPECT_OK(result);
}

void ExpectCompleteHistory(Store& store, int threads) {
  test::ExpectWorkloadHistory(store, "study", threads, kTrialsPerThread,
                              kMeasurements);
}

TEST(SqliteConcurrencyTest, ThreadsShareOneStore) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<SqliteStore> store,
      SqliteStore::Open(dir.File("hptune.db"), hptune::SystemClock()));
  ASSERT_OK(store->CreateStudy(MakeStudy("study")));
  RunThreads({store.get()}, 8);
  ExpectCompleteHistory(*store, 8);
}

TEST(SqliteConcurrencyTest, TwoStoresOnOneFile) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<SqliteStore> first,
      SqliteStore::Open(dir.File("hptune.db"), hptune::SystemClock()));
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<SqliteStore> second,
      SqliteStore::Open(dir.File("hptune.db"), hptune::SystemClock()));
  ASSERT_OK(first->CreateStudy(MakeStudy("study")));
  RunThreads({first.get(), second.get()}, 8);
  ExpectCompleteHistory(*first, 8);
  ExpectCompleteHistory(*second, 8);
}

TEST(SqliteConcurrencyTest, ReadersSeeConsistentSnapshotsDuringWrites) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<SqliteStore> writer,
      SqliteStore::Open(dir.File("hptune.db"), hptune::SystemClock()));
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<SqliteStore> reader,
      SqliteStore::Open(dir.File("hptune.db"), hptune::SystemClock()));
  ASSERT_OK(writer->CreateStudy(MakeStudy("study")));
  std::atomic<bool> done = false;
  std::thread writes([&] {
    RunThreads({writer.get()}, 2);
    done = true;
  });
  int reads = 0;
  while (!done || reads == 0) {
    ASSERT_OK_AND_ASSIGN(std::vector<Trial> trials,
                         reader->ListTrials("study"));
    for (size_t i = 0; i < trials.size(); ++i) {
      ASSERT_EQ(trials[i].number, static_cast<int64_t>(i) + 1);
      // A SUCCEEDED trial always comes with all its measurements.
      if (trials[i].state == TrialState::kSucceeded) {
        ASSERT_THAT(trials[i].measurements, SizeIs(kMeasurements));
      }
    }
    ++reads;
  }
  writes.join();
  ExpectCompleteHistory(*reader, 2);
}

// Study "study" with trials 1..active ACTIVE and trial active + 1 SUCCEEDED.
void CreateStudyWithActiveTrialsAndAnEndedOne(Store& store, int active) {
  ASSERT_OK(store.CreateStudy(MakeStudy("study")));
  std::vector<Trial> trials;
  for (int i = 0; i < active; ++i) {
    Trial trial = MakeTrial(0.01 * i);
    trial.state = TrialState::kActive;
    trials.push_back(trial);
  }
  Trial ended = MakeTrial(0.5);
  ended.state = TrialState::kSucceeded;
  ended.final_measurement = MakeMeasurement(1, 0.5);
  trials.push_back(ended);
  ASSERT_OK(store.AddTrials("study", trials, std::nullopt).status());
}

// Each ACTIVE trial of that study holds steps 1..steps in order; the ended
// one holds none.
void ExpectStepsOneToNAndNothingForTheEndedTrial(Store& store, int active,
                                                 int steps) {
  for (int i = 0; i < active; ++i) {
    ASSERT_OK_AND_ASSIGN(Trial trial, store.GetTrial("study", i + 1));
    ASSERT_THAT(trial.measurements, SizeIs(steps));
    for (int step = 1; step <= steps; ++step) {
      EXPECT_EQ(trial.measurements[step - 1].step, step);
    }
  }
  ASSERT_OK_AND_ASSIGN(Trial trial, store.GetTrial("study", active + 1));
  EXPECT_THAT(trial.measurements, SizeIs(0));
}

// Writes that queue while a commit runs go into the next commit together,
// each in a savepoint: the ones that fail get their own error and leave no
// trace, and the others are kept.
TEST(SqliteConcurrencyTest, WritesQueuedBehindACommitEachGetTheirOwnAnswer) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<SqliteStore> store,
      SqliteStore::Open(dir.File("hptune.db"), hptune::SystemClock()));
  test::ExpectQueuedWritesEachGetTheirOwnAnswer(
      *store, [&] { return store->WritesWaiting(); },
      [&] {
        RawDb(dir.File("hptune.db"))
            .Exec(
                "CREATE TRIGGER fail_designer_state BEFORE INSERT ON "
                "designer_state BEGIN SELECT RAISE(ABORT, 'injected "
                "failure'); END");
      });
}
// Concurrent AddMeasurement calls share commits; each one must still get its
// own answer: the measurements of ACTIVE trials are all stored, once, in
// each caller's order, while those for an ended trial are refused, without
// failing the others committed with them.
TEST(SqliteConcurrencyTest, ConcurrentMeasurementsEachGetTheirOwnAnswer) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<SqliteStore> store,
      SqliteStore::Open(dir.File("hptune.db"), hptune::SystemClock()));
  constexpr int kActive = 12;
  constexpr int kSteps = 150;
  CreateStudyWithActiveTrialsAndAnEndedOne(*store, kActive);

  std::atomic<int> refused = 0;
  std::vector<absl::Status> results(kActive);
  std::vector<std::thread> threads;
  for (int i = 0; i < kActive; ++i) {
    threads.emplace_back([&, i] {
      for (int step = 1; step <= kSteps; ++step) {
        absl::Status added = store->AddMeasurement(
            "study", i + 1, MakeMeasurement(step, 0.001 * step));
        if (!added.ok()) {
          results[i] = added;
          return;
        }
        // Every few steps, one for the ended trial lands in the same
        // commits.
        if (step % 10 == 0 &&
            absl::IsFailedPrecondition(store->AddMeasurement(
                "study", kActive + 1, MakeMeasurement(step, 0.1)))) {
          ++refused;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::Status& result : results) EXPECT_OK(result);
  EXPECT_EQ(refused, kActive * kSteps / 10);
  ExpectStepsOneToNAndNothingForTheEndedTrial(*store, kActive, kSteps);
}

// Callers that do not wait (the server's AddMeasurement): each measurement
// is answered exactly once, refusals included, and every accepted one is in
// the file, in each caller's order, when the store is opened again.
TEST(SqliteConcurrencyTest, MeasurementsAddedWithoutWaitingAreAnsweredAndKept) {
  TempDir dir;
  const std::string path = dir.File("hptune.db");
  constexpr int kActive = 4;
  constexpr int kSteps = 200;
  constexpr int kRefusedEach = kSteps / 10;
  std::atomic<int> accepted = 0;
  std::atomic<int> refused = 0;
  std::atomic<int> other = 0;
  std::mutex mu;
  std::condition_variable answered;
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> store,
                         SqliteStore::Open(path, hptune::SystemClock()));
    CreateStudyWithActiveTrialsAndAnEndedOne(*store, kActive);

    auto answer = [&](absl::Status status) {
      if (status.ok()) {
        ++accepted;
      } else if (absl::IsFailedPrecondition(status)) {
        ++refused;
      } else {
        ++other;
      }
      std::lock_guard lock(mu);
      answered.notify_all();
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < kActive; ++i) {
      threads.emplace_back([&, i] {
        for (int step = 1; step <= kSteps; ++step) {
          store->AddMeasurementAsync(
              "study", i + 1, MakeMeasurement(step, 0.001 * step), answer);
          if (step % 10 == 0) {
            store->AddMeasurementAsync("study", kActive + 1,
                                       MakeMeasurement(step, 0.1), answer);
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
    std::unique_lock lock(mu);
    ASSERT_TRUE(answered.wait_for(lock, std::chrono::seconds(60), [&] {
      return accepted + refused + other == kActive * (kSteps + kRefusedEach);
    }));
  }
  EXPECT_EQ(accepted, kActive * kSteps);
  EXPECT_EQ(refused, kActive * kRefusedEach);
  EXPECT_EQ(other, 0);

  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> reopened,
                       SqliteStore::Open(path, hptune::SystemClock()));
  ExpectStepsOneToNAndNothingForTheEndedTrial(*reopened, kActive, kSteps);
}

// Checkpoints run on the store's own thread: while one writer commits
// thousands of measurements the WAL stays bounded and the pages reach the
// database file.
TEST(SqliteConcurrencyTest, TheWalIsCheckpointedWhileWritesGoOn) {
  TempDir dir;
  const std::string path = dir.File("hptune.db");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> store,
                       SqliteStore::Open(path, hptune::SystemClock()));
  ASSERT_OK(store->CreateStudy(MakeStudy("study")));
  Trial trial = MakeTrial(0.1);
  trial.state = TrialState::kActive;
  ASSERT_OK(store->AddTrials("study", {trial}, std::nullopt).status());
  // Each commit writes a few 4 KiB pages: without checkpoints the WAL would
  // reach 160 MB, beyond the bound (kWalPagesHardLimit, 64 MB).
  constexpr int kCommits = 12000;
  for (int step = 1; step <= kCommits; ++step) {
    ASSERT_OK(store->AddMeasurement("study", 1, MakeMeasurement(step, 0.5)));
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::filesystem::file_size(path) < 256 * 1024 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(std::filesystem::file_size(path), 256u * 1024);
  EXPECT_LT(std::filesystem::file_size(path + "-wal"), 80u * 1024 * 1024);
  ASSERT_OK_AND_ASSIGN(Trial stored, store->GetTrial("study", 1));
  EXPECT_THAT(stored.measurements, SizeIs(kCommits));
}

}  // namespace
}  // namespace hptune::store
