// Helpers shared by the store tests: temp directories and sample records
// (the status matchers are tests/testing/status_matchers.h). Test-only;
// thread-compatible.
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
#include "tests/testing/status_matchers.h"

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

// The status matchers, under the names the store tests use.
using ::hptune_testing::GetStatus;
using ::hptune_testing::IsOk;
using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;

}  // namespace hptune::store::test

#endif  // HPTUNE_TESTS_STORE_STORE_TEST_UTIL_H_
