// ReaderPool on a real SQLite file: concurrent reads each get a connection
// of their own, up to the bound, and a read beyond it waits for one.
#include "src/store/reader_pool.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hptune/core/status.h"
#include "tests/store/store_test_util.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store::internal {
namespace {

using ::hptune::store::test::TempDir;
using namespace std::chrono_literals;

TEST(ReaderPoolTest, ConcurrentReadsRunSideBySideUpToTheBound) {
  TempDir dir;
  const std::string path = dir.File("pool.db");
  absl::StatusOr<std::unique_ptr<SqliteConnection>> first =
      SqliteConnection::Open(path, 5000ms);
  ASSERT_OK(first);
  ASSERT_OK(
      (*first)->Exec("PRAGMA journal_mode=WAL; CREATE TABLE t(x); "
                     "INSERT INTO t VALUES (42);"));
  constexpr int kBound = 3;
  ReaderPool pool(path, 5000ms, *std::move(first), kBound);

  std::mutex mu;
  std::condition_variable changed;
  int inside = 0;
  int most_inside = 0;
  bool release = false;
  std::set<SqliteConnection*> used;
  auto read = [&](SqliteConnection& db) -> absl::Status {
    return db.InTransaction(TransactionMode::kRead, [&]() -> absl::Status {
      HPTUNE_ASSIGN_OR_RETURN(Statement select, db.Prepare("SELECT x FROM t"));
      HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
      if (!row || select.ColumnInt(0) != 42) {
        return absl::InternalError("the row written first is not there");
      }
      std::unique_lock lock(mu);
      ++inside;
      most_inside = std::max(most_inside, inside);
      used.insert(&db);
      changed.notify_all();
      changed.wait(lock, [&] { return release; });
      --inside;
      return absl::OkStatus();
    });
  };
  std::vector<absl::Status> results(kBound + 1);
  std::vector<std::thread> readers;
  for (int i = 0; i <= kBound; ++i) {
    readers.emplace_back([&, i] { results[i] = pool.With(read); });
  }
  bool bound_reached = false;
  int inside_later = 0;
  {
    std::unique_lock lock(mu);
    bound_reached =
        changed.wait_for(lock, 30s, [&] { return inside == kBound; });
  }
  std::this_thread::sleep_for(200ms);
  {
    std::lock_guard lock(mu);
    inside_later = inside;
    release = true;
  }
  changed.notify_all();
  for (std::thread& t : readers) t.join();

  EXPECT_TRUE(bound_reached) << "only " << most_inside << " reads at once";
  EXPECT_EQ(inside_later, kBound) << "a read went past the bound";
  EXPECT_EQ(most_inside, kBound);
  EXPECT_EQ(used.size(), static_cast<size_t>(kBound));
  for (const absl::Status& status : results) {
    EXPECT_OK(status);
  }
}

}  // namespace
}  // namespace hptune::store::internal
