// GoogleTest matchers and macros for absl::Status and absl::StatusOr, shared
// by every test (Debian's abseil 20220623 ships none):
//
//   EXPECT_THAT(store.GetStudy("x"), StatusIs(absl::StatusCode::kNotFound,
//                                             HasSubstr("\"x\"")));
//   EXPECT_THAT(engine.ListStudies(), IsOkAndHolds(SizeIs(2)));
//   ASSERT_OK(store.CreateStudy(study));
//   ASSERT_OK_AND_ASSIGN(Trial t, store.GetTrial("x", 1));
//
// In namespace hptune_testing, not hptune::testing, so that `testing::` in
// a test inside namespace hptune still names GoogleTest's.
// Header-only; test-only; thread-compatible.
#ifndef HPTUNE_TESTS_TESTING_STATUS_MATCHERS_H_
#define HPTUNE_TESTS_TESTING_STATUS_MATCHERS_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune_testing {

inline const absl::Status& GetStatus(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// Matches a Status or StatusOr with `code` and a message matching `message`
// (a string for equality, or a matcher such as HasSubstr; `_` for any).
MATCHER_P2(StatusIs, code, message, "") {
  const absl::Status& status = ::hptune_testing::GetStatus(arg);
  *result_listener << "status is " << status;
  return status.code() == code &&
         ::testing::Matches(message)(std::string(status.message()));
}

// Matches a Status or StatusOr with `code`, whatever its message.
MATCHER_P(StatusHasCode, code, "") {
  const absl::Status& status = ::hptune_testing::GetStatus(arg);
  *result_listener << "status is " << status;
  return status.code() == code;
}

// Matches an OK Status or StatusOr.
MATCHER(IsOk, "") {
  const absl::Status& status = ::hptune_testing::GetStatus(arg);
  *result_listener << "status is " << status;
  return status.ok();
}

// Matches an OK StatusOr whose value matches `matcher` (or equals a value).
MATCHER_P(IsOkAndHolds, matcher, "") {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(matcher, *arg, result_listener);
}

}  // namespace hptune_testing

#define EXPECT_OK(expr) \
  EXPECT_EQ(::hptune_testing::GetStatus(expr), ::absl::OkStatus())
#define ASSERT_OK(expr) \
  ASSERT_EQ(::hptune_testing::GetStatus(expr), ::absl::OkStatus())

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

#endif  // HPTUNE_TESTS_TESTING_STATUS_MATCHERS_H_
