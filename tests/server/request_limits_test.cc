#include "src/server/request_limits.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/testing/status_matchers.h"

namespace hptune::server {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;

TEST(CheckNameTest, AcceptsJobIdsAndNamesTheFieldOtherwise) {
  EXPECT_OK(CheckName("study", "mnist_lr_2"));
  absl::Status empty = CheckName("study", "");
  EXPECT_THAT(empty,
              StatusIs(absl::StatusCode::kInvalidArgument, "study: required"));
  absl::Status huge = CheckName("name", std::string(1 << 20, 'a'));
  EXPECT_EQ(huge.message(), "name: at most 128 characters, got 1048576");
  absl::Status digit = CheckName("job_id", "1abc");
  EXPECT_THAT(digit, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_NE(digit.message().find("job_id"), std::string::npos)
      << digit.message();
}

TEST(CheckLengthTest, CountsCharacters) {
  EXPECT_OK(CheckLength("client_id", std::string(256, 'c'), 256));
  EXPECT_EQ(CheckLength("client_id", std::string(257, 'c'), 256).message(),
            "client_id: at most 256 characters, got 257");
}

TEST(PageTest, TokensAndSizes) {
  EXPECT_EQ(*ParsePageToken(""), 0u);
  EXPECT_EQ(*ParsePageToken("200"), 200u);
  absl::StatusOr<size_t> bad = ParsePageToken("abc");
  EXPECT_EQ(bad.status().message(),
            "page_token: not a token this server returned, got \"abc\"");
  EXPECT_EQ(*CheckPageSize(0), 100u);
  EXPECT_EQ(*CheckPageSize(5), 5u);
  EXPECT_EQ(CheckPageSize(-1).status().message(),
            "page_size: must be 0 (default 100) to 1000, got -1");
  EXPECT_FALSE(CheckPageSize(1001).ok());
}

}  // namespace
}  // namespace hptune::server
