// The runner lease of the Store contract (Store::AcquireRunnerLease), run
// against every implementation: one server alone, runs beside each other, a
// run per job, released on destruction, servers that share a store where it
// allows them (kSharedServer), each holding its jobs. SqliteStore's leases
// are flocks,
// which belong to an open file description, so two leases taken in one
// process contend as two processes would; PostgresStore's are advisory locks
// on a connection of each lease's own, on a real server started by this
// binary. A new store adds its factory.
#include <functional>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/env/clock.h"
#include "hptune/store/open_store.h"
#include "hptune/store/store.h"
#include "tests/store/store_test_util.h"
#include "tests/testing/expected.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store {
namespace {

using ::absl::StatusCode;
using ::hptune::store::test::TempDir;
using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

struct LeaseStoreFactory {
  std::string name;
  // The store's URL in `dir`.
  std::function<std::string(const TempDir&)> url;
  // Whether servers share it (kSharedServer leases beside each other).
  bool shares_servers = false;
};

class RunnerLeaseConformanceTest
    : public ::testing::TestWithParam<LeaseStoreFactory> {
 protected:
  void SetUp() override {
    std::string url = GetParam().url(dir_);
    if (url.empty()) {  // PostgreSQL: a database of the binary's server.
      absl::StatusOr<testing::PostgresServer*> server =
          testing::PostgresServer::Shared();
      HPTUNE_SKIP_UNLESS_AVAILABLE(server.ok(), "postgresql",
                                   server.status().message());
      absl::StatusOr<std::string> database = (*server)->NewDatabase();
      ASSERT_OK(database.status());
      url = *database;
    }
    absl::StatusOr<std::unique_ptr<Store>> store =
        OpenStore(url, clock_, {.env = &DefaultEnv()});
    ASSERT_OK(store.status());
    store_ = *std::move(store);
  }

  absl::StatusOr<std::unique_ptr<RunnerLease>> Server() {
    return store_->AcquireRunnerLease(RunnerHolder::kServer, "");
  }
  absl::StatusOr<std::unique_ptr<RunnerLease>> SharedServer() {
    return store_->AcquireRunnerLease(RunnerHolder::kSharedServer, "");
  }
  absl::StatusOr<std::unique_ptr<RunnerLease>> Run(const std::string& job) {
    return store_->AcquireRunnerLease(RunnerHolder::kRun, job);
  }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<Store> store_;
};

TEST_P(RunnerLeaseConformanceTest, OneServerAtATime) {
  absl::StatusOr<std::unique_ptr<RunnerLease>> first = Server();
  ASSERT_OK(first.status());
  EXPECT_THAT(Server(), StatusIs(StatusCode::kUnavailable,
                                 HasSubstr("already served by another")));
  EXPECT_THAT(Run("job_1"), StatusIs(StatusCode::kUnavailable,
                                     HasSubstr("is served by hptune serve")));
  EXPECT_THAT(Run(""), StatusHasCode(StatusCode::kUnavailable));
  first->reset();  // Released on destruction.
  EXPECT_OK(Server().status());
}

TEST_P(RunnerLeaseConformanceTest, RunsShareTheStoreAndKeepTheServerOut) {
  absl::StatusOr<std::unique_ptr<RunnerLease>> one = Run("job_1");
  absl::StatusOr<std::unique_ptr<RunnerLease>> two = Run("job_2");
  absl::StatusOr<std::unique_ptr<RunnerLease>> jobless = Run("");
  ASSERT_OK(one.status());
  ASSERT_OK(two.status());
  ASSERT_OK(jobless.status());
  EXPECT_THAT(Server(), StatusIs(StatusCode::kUnavailable,
                                 HasSubstr("in use by hptune run")));
  one->reset();
  two->reset();
  EXPECT_THAT(Server(), StatusHasCode(StatusCode::kUnavailable));
  jobless->reset();
  EXPECT_OK(Server().status());
}

TEST_P(RunnerLeaseConformanceTest, OneRunPerJobUntilItsLeaseIsGone) {
  absl::StatusOr<std::unique_ptr<RunnerLease>> first = Run("job_1");
  ASSERT_OK(first.status());
  EXPECT_THAT(Run("job_1"), StatusIs(StatusCode::kUnavailable,
                                     HasSubstr("job job_1 is being run")));
  first->reset();
  absl::StatusOr<std::unique_ptr<RunnerLease>> again = Run("job_1");
  ASSERT_OK(again.status());
  // A refused run leaves nothing held behind it.
  EXPECT_THAT(Run("job_1"), StatusHasCode(StatusCode::kUnavailable));
  again->reset();
  EXPECT_OK(Server().status());
}

TEST_P(RunnerLeaseConformanceTest, AServerLeaseHoldsNoJob) {
  EXPECT_THAT(store_->AcquireRunnerLease(RunnerHolder::kServer, "job_1"),
              StatusHasCode(StatusCode::kInvalidArgument));
  EXPECT_OK(Server().status());
}

TEST_P(RunnerLeaseConformanceTest, SharedServersWhereTheStoreAllowsThem) {
  absl::StatusOr<std::unique_ptr<RunnerLease>> first = SharedServer();
  ASSERT_OK(first.status());
  EXPECT_EQ((*first)->shared(), GetParam().shares_servers);
  absl::StatusOr<std::unique_ptr<RunnerLease>> second = SharedServer();
  if (GetParam().shares_servers) {
    ASSERT_OK(second.status());
    EXPECT_TRUE((*second)->shared());
  } else {
    EXPECT_THAT(second, StatusIs(StatusCode::kUnavailable,
                                 HasSubstr("already served by another")));
  }
  // Neither a run nor a server alone beside them.
  EXPECT_THAT(Run("job_1"), StatusIs(StatusCode::kUnavailable,
                                     HasSubstr("is served by hptune serve")));
  EXPECT_THAT(Server(), StatusHasCode(StatusCode::kUnavailable));
  first->reset();
  second = absl::UnavailableError("released");
  EXPECT_OK(Run("job_1").status());
}

TEST_P(RunnerLeaseConformanceTest, NoSharedServerBesideARunOrAServerAlone) {
  absl::StatusOr<std::unique_ptr<RunnerLease>> run = Run("");
  ASSERT_OK(run.status());
  EXPECT_THAT(SharedServer(), StatusIs(StatusCode::kUnavailable,
                                       HasSubstr("in use by hptune run")));
  run->reset();
  absl::StatusOr<std::unique_ptr<RunnerLease>> alone = Server();
  ASSERT_OK(alone.status());
  EXPECT_THAT(SharedServer(), StatusHasCode(StatusCode::kUnavailable));
  alone->reset();
  EXPECT_OK(SharedServer().status());
}

TEST_P(RunnerLeaseConformanceTest, EachJobIsHeldByOneSharedServer) {
  absl::StatusOr<std::unique_ptr<RunnerLease>> first = SharedServer();
  ASSERT_OK(first.status());
  absl::StatusOr<std::unique_ptr<JobHold>> held = (*first)->HoldJob("job_1");
  ASSERT_OK(held.status());
  if (!GetParam().shares_servers) return;  // Every job is its one server's.
  absl::StatusOr<std::unique_ptr<RunnerLease>> second = SharedServer();
  ASSERT_OK(second.status());
  EXPECT_THAT((*second)->HoldJob("job_1"),
              StatusIs(StatusCode::kUnavailable,
                       HasSubstr("job job_1 is held by another runner")));
  EXPECT_THAT((*first)->HoldJob("job_1"),
              StatusIs(StatusCode::kUnavailable, HasSubstr("this server")));
  EXPECT_OK((*second)->HoldJob("job_2").status());  // Released at once.
  held->reset();
  absl::StatusOr<std::unique_ptr<JobHold>> taken = (*second)->HoldJob("job_1");
  ASSERT_OK(taken.status());
  EXPECT_THAT((*first)->HoldJob("job_1"),
              StatusHasCode(StatusCode::kUnavailable));
  // A lease's end frees its jobs (as its process's death does).
  taken->reset();
  second->reset();
  EXPECT_OK((*first)->HoldJob("job_2").status());
}

// Leases asked for by `holders` threads at once, released together: how
// many of them were granted, round by round.
std::vector<int> GrantedTogether(
    int rounds, const std::vector<std::function<
                    absl::StatusOr<std::unique_ptr<RunnerLease>>()>>& holders) {
  std::vector<int> granted;
  for (int round = 0; round < rounds; ++round) {
    std::vector<absl::StatusOr<std::unique_ptr<RunnerLease>>> leases(
        holders.size());
    std::latch start(static_cast<std::ptrdiff_t>(holders.size()));
    std::vector<std::thread> threads;
    for (size_t i = 0; i < holders.size(); ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        leases[i] = holders[i]();
      });
    }
    for (std::thread& thread : threads) thread.join();
    int ok = 0;
    for (const auto& lease : leases) ok += lease.ok() ? 1 : 0;
    granted.push_back(ok);
  }
  return granted;
}

// Servers that start at the same moment are all admitted where servers
// share the store, and exactly one where they do not: a check that took
// the runs' lock for a moment refused a server starting beside another.
TEST_P(RunnerLeaseConformanceTest, SharedServersStartingTogether) {
  const auto shared = [this] { return SharedServer(); };
  const int expected = GetParam().shares_servers ? 3 : 1;
  for (int granted : GrantedTogether(30, {shared, shared, shared})) {
    ASSERT_EQ(granted, expected);
  }
}

// A run and a server that start at the same moment are never both
// admitted.
TEST_P(RunnerLeaseConformanceTest, ARunAndASharedServerStartingTogether) {
  for (int granted : GrantedTogether(30, {[this] { return SharedServer(); },
                                          [this] { return Run(""); }})) {
    ASSERT_LE(granted, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Stores, RunnerLeaseConformanceTest,
    ::testing::Values(
        LeaseStoreFactory{"Memory", [](const TempDir&) { return "memory:"; }},
        LeaseStoreFactory{"Sqlite",
                          [](const TempDir& dir) {
                            return "sqlite:" + dir.File("hptune.db");
                          }},
        LeaseStoreFactory{"Postgres", [](const TempDir&) { return ""; },
                          /*shares_servers=*/true}),
    [](const ::testing::TestParamInfo<LeaseStoreFactory>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace hptune::store
