// OpenStore's URLs (hptune/store/open_store.h): the schemes, plain paths as
// every --db FILE has them, and the refusals' messages.
#include "hptune/store/open_store.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/store/store.h"
#include "tests/store/store_test_util.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store {
namespace {

using ::absl::StatusCode;
using ::hptune::store::test::TempDir;
using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

StoreUrl Sqlite(const std::string& path) {
  return {.scheme = StoreUrl::Scheme::kSqlite, .path = path};
}

TEST(PrintableStoreUrlTest, LeavesOutEveryFormOfPassword) {
  EXPECT_EQ(PrintableStoreUrl("postgresql://u:secret@db/h"),
            "postgresql://...@db/h");
  EXPECT_EQ(PrintableStoreUrl("postgresql:///h?PassWord=secret&host=/s"),
            "postgresql:///h?PassWord=...&host=/s");
  EXPECT_EQ(PrintableStoreUrl("sqlite:/a/b.db"), "sqlite:/a/b.db");
  // The cut to 200 characters comes after: it must not keep a long
  // password by cutting off the "@" that ends it.
  const std::string long_password(300, 's');
  EXPECT_THAT(PrintableStoreUrl("postgresql://u:" + long_password + "@db/h"),
              Not(HasSubstr("sss")));
}

TEST(ParseStoreUrlTest, APlainPathIsASqliteFile) {
  EXPECT_THAT(ParseStoreUrl("hptune.db"), IsOkAndHolds(Sqlite("hptune.db")));
  EXPECT_THAT(ParseStoreUrl("/var/lib/h.db"),
              IsOkAndHolds(Sqlite("/var/lib/h.db")));
  // A colon after a slash is part of a file name, not a scheme.
  EXPECT_THAT(ParseStoreUrl("./a:b.db"), IsOkAndHolds(Sqlite("./a:b.db")));
  EXPECT_THAT(ParseStoreUrl("/x/y:z"), IsOkAndHolds(Sqlite("/x/y:z")));
}

TEST(ParseStoreUrlTest, SqliteAndMemorySchemes) {
  EXPECT_THAT(ParseStoreUrl("sqlite:h.db"), IsOkAndHolds(Sqlite("h.db")));
  EXPECT_THAT(ParseStoreUrl("sqlite:/abs/h.db"),
              IsOkAndHolds(Sqlite("/abs/h.db")));
  EXPECT_THAT(ParseStoreUrl("SQLite:h.db"), IsOkAndHolds(Sqlite("h.db")));
  EXPECT_THAT(ParseStoreUrl("memory:"),
              IsOkAndHolds(StoreUrl{.scheme = StoreUrl::Scheme::kMemory}));
}

TEST(ParseStoreUrlTest, RefusalsNameTheValueAndTheSchemesKnown) {
  EXPECT_THAT(ParseStoreUrl("mysql:h"),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("\"mysql:h\""),
                             HasSubstr("unknown scheme \"mysql:\""),
                             HasSubstr("sqlite:PATH"), HasSubstr("memory:"),
                             HasSubstr("postgresql://..."))));
  EXPECT_THAT(ParseStoreUrl("sqlite:"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("sqlite: needs a file path")));
  EXPECT_THAT(ParseStoreUrl("memory:x"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("memory: takes nothing")));
  EXPECT_THAT(ParseStoreUrl(""), StatusHasCode(StatusCode::kInvalidArgument));
}

TEST(ParseStoreUrlTest, ASqliteUrlTakesItsBusyTimeout) {
  StoreUrl with_timeout = Sqlite("/d/h.db");
  with_timeout.busy_deadline = std::chrono::milliseconds(250);
  EXPECT_THAT(ParseStoreUrl("sqlite:/d/h.db?busy_timeout_ms=250"),
              IsOkAndHolds(with_timeout));
  // A plain path keeps its "?": the file is named so.
  EXPECT_THAT(ParseStoreUrl("/d/h.db?busy_timeout_ms=250"),
              IsOkAndHolds(Sqlite("/d/h.db?busy_timeout_ms=250")));
  EXPECT_THAT(ParseStoreUrl("sqlite:h.db?busy_timeout_ms=-1"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("busy_timeout_ms \"-1\" is not a whole")));
  EXPECT_THAT(ParseStoreUrl("sqlite:h.db?busy_timeout_ms=3600001"),
              StatusHasCode(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseStoreUrl("sqlite:h.db?mode=ro"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("unknown option \"mode\"")));
  EXPECT_THAT(ParseStoreUrl("sqlite:?busy_timeout_ms=1"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("sqlite: needs a file path")));
}

TEST(ParseStoreUrlTest, APostgresUrlTakesItsPoolSize) {
  EXPECT_THAT(ParseStoreUrl("postgresql://u@db.host/hptune"),
              IsOkAndHolds(StoreUrl{.scheme = StoreUrl::Scheme::kPostgres,
                                    .path = "postgresql://u@db.host/hptune"}));
  EXPECT_THAT(
      ParseStoreUrl("postgres:///h?host=/run/pg&pool=16&sslmode=disable"),
      IsOkAndHolds(
          StoreUrl{.scheme = StoreUrl::Scheme::kPostgres,
                   .path = "postgres:///h?host=/run/pg&sslmode=disable",
                   .pool_size = 16}));
  EXPECT_THAT(ParseStoreUrl("postgresql://u:secret@h/d?pool=65"),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("pool \"65\" is not a number of "
                                       "connections from 1 to 64"),
                             Not(HasSubstr("secret")))));
  EXPECT_THAT(ParseStoreUrl("postgresql://h/d?pool=0"),
              StatusHasCode(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseStoreUrl("postgresql:h"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("postgresql: is a URL")));
}

TEST(ParseStoreUrlTest, APasswordIsNeverInTheMessage) {
  EXPECT_THAT(ParseStoreUrl("postgresql://u:secret@db.host/hptune?pool=x"),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("postgresql://...@db.host/hptune"),
                             Not(HasSubstr("secret")))));
  EXPECT_THAT(ParseStoreUrl("postgresql://db.host/h?password=secret&pool=x"),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("password=...&pool=x"),
                             Not(HasSubstr("secret")))));
  EXPECT_THAT(ParseStoreUrl("mysql://u:secret@db.host/hptune"),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("mysql://...@db.host/hptune"),
                             Not(HasSubstr("secret")))));
}

TEST(OpenStoreTest, OpensEachScheme) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Store> file,
                       OpenStore("sqlite:" + path, SystemClock()));
  EXPECT_TRUE(std::filesystem::exists(path));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Store> memory,
                       OpenStore("memory:", SystemClock()));
  EXPECT_THAT(memory->ListStudies(), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(OpenStore("nosuch:x", SystemClock()).status(),
              StatusHasCode(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace hptune::store
