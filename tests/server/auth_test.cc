#include "src/server/auth.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/testing/run_process.h"

namespace hptune::server {
namespace {

TEST(ConstantTimeEqualsTest, EqualOnlyWhenSameBytesAndLength) {
  EXPECT_TRUE(ConstantTimeEquals("token", "token"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_FALSE(ConstantTimeEquals("tokem", "token"));
  EXPECT_FALSE(ConstantTimeEquals("toke", "token"));
  EXPECT_FALSE(ConstantTimeEquals("token!", "token"));
  EXPECT_FALSE(ConstantTimeEquals("", "token"));
  EXPECT_FALSE(ConstantTimeEquals(std::string("tok\0n", 5), "token"));
}

TEST(TokenAuthenticatorTest, WithoutTokenEverythingPasses) {
  TokenAuthenticator auth("");
  EXPECT_FALSE(auth.enabled());
  EXPECT_TRUE(auth.CheckHeader("").ok());
}

TEST(TokenAuthenticatorTest, ChecksTheBearerToken) {
  TokenAuthenticator auth("abc123");
  EXPECT_TRUE(auth.CheckHeader("Bearer abc123").ok());
  grpc::Status missing = auth.CheckHeader("");
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(missing.error_message().find("authorization: Bearer <token>"),
            std::string::npos);
  grpc::Status scheme = auth.CheckHeader("Basic abc123");
  EXPECT_EQ(scheme.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(scheme.error_message(),
            "the authorization metadata must be \"Bearer <token>\"");
  grpc::Status wrong = auth.CheckHeader("Bearer abc124");
  EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  // The reply never echoes either token.
  EXPECT_EQ(wrong.error_message().find("abc"), std::string::npos);
}

TEST(ReadTokenFileTest, TrimsWhitespaceAndRejectsEmptyOrMissing) {
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/t") << "  secret\n";
  auto token = ReadTokenFile(dir + "/t");
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token, "secret");
  std::ofstream(dir + "/empty") << "\n\n";
  auto empty = ReadTokenFile(dir + "/empty");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.status().message(),
            "token file \"" + dir + "/empty\": holds no token");
  auto missing = ReadTokenFile(dir + "/none");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "token file \"" + dir + "/none\": cannot be read");
}

}  // namespace
}  // namespace hptune::server
