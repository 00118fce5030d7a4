// What only PostgresStore has, on a real server started by this binary
// (tests/testing/postgres_server.h): its schema version and refusals, its
// errors for a server it cannot reach, trial numbers given once across
// stores (processes) on one database, a runner lease freed when the
// server drops its session, and a store fenced once its lease's session
// ended.
#include "src/store/postgres_store.h"

#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "hptune/store/open_store.h"
#include "src/store/postgres_connection.h"
#include "tests/store/queued_writes.h"
#include "tests/store/store_test_util.h"
#include "tests/testing/expected.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store {
namespace {

using ::absl::StatusCode;
using ::hptune::store::test::MakeStudy;
using ::hptune::store::test::MakeTrial;
using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::PostgresServer*> server =
        testing::PostgresServer::Shared();
    HPTUNE_SKIP_UNLESS_AVAILABLE(server.ok(), "postgresql",
                                 server.status().message());
    absl::StatusOr<std::string> url = (*server)->NewDatabase();
    ASSERT_OK(url.status());
    url_ = *url;
  }

  // Runs `sql` on the test's database, beside the store.
  void Sql(const std::string& sql) {
    absl::StatusOr<StoreUrl> parsed = ParseStoreUrl(url_);
    ASSERT_OK(parsed.status());
    auto db = internal::PgConnection::Open(parsed->path, "test");
    ASSERT_OK(db.status());
    ASSERT_OK((*db)->Exec(sql));
  }

  // Ends the other sessions of the test's database that hold an advisory
  // lock, as when their process dies or loses the network, and waits (up to
  // 10 s) until each has ended, its locks freed.
  void EndLockHolders() {
    Sql("SELECT pg_terminate_backend(pid, 10000) FROM pg_locks "
        "WHERE locktype = 'advisory' AND pid <> pg_backend_pid() AND "
        "database = (SELECT oid FROM pg_database WHERE datname = "
        "current_database())");
  }

  std::string url_;
  FakeClock clock_;
};

TEST_F(PostgresStoreTest, RefusesANewerSchemaVersion) {
  ASSERT_OK(OpenStore(url_, clock_).status());
  Sql("UPDATE hptune_schema SET version = 99");
  EXPECT_THAT(OpenStore(url_, clock_),
              StatusIs(StatusCode::kFailedPrecondition,
                       HasSubstr("schema version 99 is newer than this "
                                 "hptune supports (1)")));
}

TEST_F(PostgresStoreTest, RefusesADatabaseOfOtherTables) {
  Sql("CREATE TABLE studies (x INTEGER)");
  EXPECT_THAT(OpenStore(url_, clock_),
              StatusIs(StatusCode::kFailedPrecondition,
                       HasSubstr("not an hptune database")));
}

TEST_F(PostgresStoreTest, AServerItCannotReachIsUnavailableWithoutPassword) {
  EXPECT_THAT(
      OpenStore("postgresql://u:secret@/h?host=/nonexistent/hptune", clock_),
      StatusIs(StatusCode::kUnavailable,
               AllOf(HasSubstr("postgresql://...@/h?host=/nonexistent"),
                     HasSubstr("cannot connect"), Not(HasSubstr("secret")))));
}

TEST_F(PostgresStoreTest, WritesAreThereForTheNextStore) {
  {
    auto store = OpenStore(url_, clock_);
    ASSERT_OK(store.status());
    ASSERT_OK((*store)->CreateStudy(MakeStudy("kept")));
  }
  auto again = OpenStore(url_ + "&pool=1", clock_);
  ASSERT_OK(again.status());
  EXPECT_OK((*again)->GetStudy("kept").status());
}

// A connection keeps the specs it decoded by their stored text
// (spec_cache.h): a row whose text changed, here by another server, reads
// back with its new spec. One connection, so the second read is on the
// connection that decoded the first.
TEST_F(PostgresStoreTest, AStudyRowWhoseSpecChangedReadsTheNewSpec) {
  auto store = OpenStore(url_ + "&pool=1", clock_);
  ASSERT_OK(store.status());
  ASSERT_OK((*store)->CreateStudy(MakeStudy("mnist")));
  absl::StatusOr<StudyRecord> before = (*store)->GetStudy("mnist");
  ASSERT_OK(before.status());
  StudySpec changed = before->spec;
  changed.max_trials += 7;
  Sql("UPDATE studies SET spec_json = '" + StudySpecToJson(changed) + "'");
  absl::StatusOr<StudyRecord> after = (*store)->GetStudy("mnist");
  ASSERT_OK(after.status());
  EXPECT_EQ(after->spec.max_trials, before->spec.max_trials + 7);
}

// Writes queued behind a commit share the next one, each in a savepoint
// (write_queue.h), as SqliteStore's do.
TEST_F(PostgresStoreTest, WritesQueuedBehindACommitEachGetTheirOwnAnswer) {
  absl::StatusOr<StoreUrl> parsed = ParseStoreUrl(url_);
  ASSERT_OK(parsed.status());
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<PostgresStore> store,
      PostgresStore::Open(parsed->path, "test", PostgresStore::kDefaultPoolSize,
                          clock_));
  test::ExpectQueuedWritesEachGetTheirOwnAnswer(
      *store, [&] { return store->WritesWaiting(); },
      [&] {
        Sql("CREATE FUNCTION fail_designer_state() RETURNS trigger "
            "LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected "
            "failure'; END $$");
        Sql("CREATE TRIGGER fail_designer_state BEFORE INSERT ON "
            "designer_state FOR EACH ROW EXECUTE FUNCTION "
            "fail_designer_state()");
      });
}

// Two stores stand for two servers: each trial number is given once.
TEST_F(PostgresStoreTest, TrialNumbersAreGivenOnceAcrossStores) {
  auto first = OpenStore(url_, clock_);
  auto second = OpenStore(url_, clock_);
  ASSERT_OK(first.status());
  ASSERT_OK(second.status());
  ASSERT_OK((*first)->CreateStudy(MakeStudy("s")));
  constexpr int kPerThread = 15;
  std::vector<std::thread> threads;
  std::vector<std::vector<int64_t>> numbers(4);
  for (int t = 0; t < 4; ++t) {
    Store* store = (t % 2 == 0 ? *first : *second).get();
    threads.emplace_back([store, &numbers, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto added = store->AddTrials("s", {MakeTrial(0.1)}, std::nullopt);
        if (added.ok()) numbers[t].push_back(added->front().number);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<int64_t> given;
  for (const auto& some : numbers) given.insert(some.begin(), some.end());
  EXPECT_EQ(given.size(), 4u * kPerThread);
  EXPECT_EQ(*given.rbegin(), 4 * kPerThread);
}

TEST_F(PostgresStoreTest, ALeaseWhoseSessionDiesIsFreed) {
  auto store = OpenStore(url_, clock_);
  ASSERT_OK(store.status());
  auto held = (*store)->AcquireRunnerLease(RunnerHolder::kServer, "");
  ASSERT_OK(held.status());
  EXPECT_THAT((*store)->AcquireRunnerLease(RunnerHolder::kServer, ""),
              StatusIs(StatusCode::kUnavailable,
                       HasSubstr("already served by another")));
  EndLockHolders();
  EXPECT_OK((*store)->AcquireRunnerLease(RunnerHolder::kServer, "").status());
}

// A lease dropped after its session ended, before anything was written,
// still leaves its store fenced.
TEST_F(PostgresStoreTest, AStoreWhoseLostLeaseWasDroppedWritesNothingMore) {
  auto store = OpenStore(url_, clock_);
  ASSERT_OK(store.status());
  auto lease = (*store)->AcquireRunnerLease(RunnerHolder::kSharedServer, "");
  ASSERT_OK(lease.status());
  EndLockHolders();
  lease->reset();
  EXPECT_THAT(
      (*store)->CreateStudy(MakeStudy("after_the_lease")),
      StatusIs(StatusCode::kUnavailable, HasSubstr("lost the runner lease")));
}

// A lease released while held leaves its store free to write.
TEST_F(PostgresStoreTest, AStoreWhoseLeaseWasReleasedWritesOn) {
  auto store = OpenStore(url_, clock_);
  ASSERT_OK(store.status());
  auto lease = (*store)->AcquireRunnerLease(RunnerHolder::kServer, "");
  ASSERT_OK(lease.status());
  ASSERT_OK((*lease)->Check());
  lease->reset();
  EXPECT_OK((*store)->CreateStudy(MakeStudy("after")));
}

// A fence: once the database ended the session of a lease taken through a
// store (its process was partitioned from it), that store writes nothing
// more, even after the lease is dropped, while other stores write on.
TEST_F(PostgresStoreTest, AStoreWhoseLeaseSessionEndedWritesNothingMore) {
  auto store = OpenStore(url_, clock_);
  ASSERT_OK(store.status());
  auto other = OpenStore(url_, clock_);
  ASSERT_OK(other.status());
  auto lease = (*store)->AcquireRunnerLease(RunnerHolder::kSharedServer, "");
  ASSERT_OK(lease.status());
  ASSERT_OK((*store)->CreateStudy(MakeStudy("while_held")));

  EndLockHolders();
  const auto fenced =
      StatusIs(StatusCode::kUnavailable, HasSubstr("lost the runner lease"));
  EXPECT_THAT((*store)->CreateStudy(MakeStudy("after_the_end")), fenced);
  lease->reset();
  EXPECT_THAT((*store)->CreateStudy(MakeStudy("after_the_lease")), fenced);
  EXPECT_OK((*other)->CreateStudy(MakeStudy("other")));
  EXPECT_OK((*store)->GetStudy("while_held").status());
  EXPECT_THAT((*other)->GetStudy("after_the_lease"),
              StatusIs(StatusCode::kNotFound, HasSubstr("after_the_lease")));
}

}  // namespace
}  // namespace hptune::store
