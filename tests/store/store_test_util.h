// Helpers shared by the store tests: temp directories, sample records and
// status matchers. Test-only; thread-compatible.
#ifndef HPTUNE_TESTS_STORE_STORE_TEST_UTIL_H_
#define HPTUNE_TESTS_STORE_STORE_TEST_UTIL_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/measurement.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"

struct sqlite3;

namespace hptune::store::test {

// A fresh directory under ::testing::TempDir(), removed with its contents.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(std::string_view name) const;

 private:
  std::string path_;
};

// A plain sqlite3 connection, to look at and tamper with a store's file the
// way another program would.
class RawDb {
 public:
  explicit RawDb(const std::string& path);
  ~RawDb();
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  // Runs `sql` (no results); a failure fails the test.
  void Exec(const std::string& sql);
  // The first column of every row, as text.
  std::vector<std::string> Query(const std::string& sql);

 private:
  sqlite3* db_ = nullptr;
};

// Checks what RunTrialWorkload (store_workload.h) leaves in `study` after
// `clients` writers ran it with `trials_per_client` and `measurements`:
// exact counts, numbers dense from 1, every trial SUCCEEDED with all its
// measurements, and the matching events.
void ExpectWorkloadHistory(Store& store, const std::string& study, int clients,
                           int trials_per_client, int measurements);

// A study over lr (DOUBLE, log), layers (INTEGER), width (DISCRETE) and cell
// (CATEGORICAL), maximising "accuracy".
StudyRecord MakeStudy(std::string name);
// A REQUESTED trial of MakeStudy's space.
Trial MakeTrial(double lr);
Measurement MakeMeasurement(int64_t step, double accuracy);

inline const absl::Status& GetStatus(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// Matches a Status or StatusOr with `code` and a message matching `message`
// (a string for equality, or a matcher such as HasSubstr).
MATCHER_P2(StatusIs, code, message, "") {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status is " << status;
  return status.code() == code &&
         ::testing::Matches(message)(std::string(status.message()));
}

// Matches an OK StatusOr whose value matches `matcher` (or equals a value).
MATCHER_P(IsOkAndHolds, matcher, "") {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(matcher, *arg, result_listener);
}

}  // namespace hptune::store::test

#define EXPECT_OK(expr) \
  EXPECT_EQ(::hptune::store::test::GetStatus(expr), ::absl::OkStatus())
#define ASSERT_OK(expr) \
  ASSERT_EQ(::hptune::store::test::GetStatus(expr), ::absl::OkStatus())

#define HPTUNE_TEST_CONCAT_INNER_(a, b) a##b
#define HPTUNE_TEST_CONCAT_(a, b) HPTUNE_TEST_CONCAT_INNER_(a, b)
// `ASSERT_OK_AND_ASSIGN(auto x, F());` declares x from F()'s value, or fails
// the test with F()'s status.
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  HPTUNE_ASSERT_OK_AND_ASSIGN_IMPL_(    \
      HPTUNE_TEST_CONCAT_(hptune_status_or_, __LINE__), lhs, expr)
#define HPTUNE_ASSERT_OK_AND_ASSIGN_IMPL_(var, lhs, expr) \
  auto var = (expr);                                      \
  ASSERT_EQ(var.status(), ::absl::OkStatus());            \
  lhs = std::move(var).value()

#endif  // HPTUNE_TESTS_STORE_STORE_TEST_UTIL_H_
