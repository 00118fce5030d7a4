#include "src/server/request_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace hptune::server {
namespace {

TEST(CheckNameTest, AcceptsJobIdsAndNamesTheFieldOtherwise) {
  EXPECT_TRUE(CheckName("study", "mnist_lr_2").ok());
  absl::Status empty = CheckName("study", "");
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.message(), "study: required");
  absl::Status huge = CheckName("name", std::string(1 << 20, 'a'));
  EXPECT_EQ(huge.message(), "name: at most 128 characters, got 1048576");
  absl::Status digit = CheckName("job_id", "1abc");
  EXPECT_EQ(digit.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(digit.message().find("job_id"), std::string::npos)
      << digit.message();
}

TEST(CheckLengthTest, CountsCharacters) {
  EXPECT_TRUE(CheckLength("client_id", std::string(256, 'c'), 256).ok());
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
