#include "src/server/auth.h"

#include <gtest/gtest.h>

namespace hptune::server {
namespace {

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

}  // namespace
}  // namespace hptune::server
