// Concurrent writers in one process: many threads on one SqliteStore, and
// threads on two SqliteStore instances (two connections) on the same file.
// Every call must succeed (busy is waited out, never surfaced) and trial
// numbers must stay dense and unique.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/store/sqlite_store.h"
#include "tests/store/store_test_util.h"
#include "tests/store/store_workload.h"

namespace hptune::store {
namespace {

using ::hptune::store::test::MakeStudy;
using ::hptune::store::test::RunTrialWorkload;
using ::hptune::store::test::TempDir;
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
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> store,
                       SqliteStore::Open(dir.File("hptune.db")));
  ASSERT_OK(store->CreateStudy(MakeStudy("study")));
  RunThreads({store.get()}, 8);
  ExpectCompleteHistory(*store, 8);
}

TEST(SqliteConcurrencyTest, TwoStoresOnOneFile) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> first,
                       SqliteStore::Open(dir.File("hptune.db")));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> second,
                       SqliteStore::Open(dir.File("hptune.db")));
  ASSERT_OK(first->CreateStudy(MakeStudy("study")));
  RunThreads({first.get(), second.get()}, 8);
  ExpectCompleteHistory(*first, 8);
  ExpectCompleteHistory(*second, 8);
}

TEST(SqliteConcurrencyTest, ReadersSeeConsistentSnapshotsDuringWrites) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> writer,
                       SqliteStore::Open(dir.File("hptune.db")));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteStore> reader,
                       SqliteStore::Open(dir.File("hptune.db")));
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

}  // namespace
}  // namespace hptune::store
