#include "src/server/auth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "hptune/env/env_wrapper.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::server {
namespace {

using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;

TEST(TokenAuthenticatorTest, WithoutTokenEverythingPasses) {
  TokenAuthenticator auth("", DefaultEnv());
  EXPECT_FALSE(auth.enabled());
  EXPECT_TRUE(auth.CheckHeader("").ok());
}

TEST(TokenAuthenticatorTest, ChecksTheBearerToken) {
  TokenAuthenticator auth("abc123", DefaultEnv());
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

// A users file in a fresh directory, with `mode`.
std::string UsersFile(const std::string& text, int mode = 0600) {
  const std::string path = ::hptune::testing::MakeTempDir() + "/users";
  std::ofstream(path) << text;
  chmod(path.c_str(), mode);
  return path;
}

const std::string kAliceToken(32, 'a');

TEST(TokenAuthenticatorTest, UsersFileTokensActAsTheirUsers) {
  TokenAuthenticator auth("server-token", DefaultEnv());
  ASSERT_OK(auth.LoadUsersFile(
      UsersFile("# who  token\n\n  1234 " + kAliceToken + "\n"), DefaultEnv()));
  ASSERT_OK_AND_ASSIGN(Caller alice,
                       auth.IdentifyHeader("Bearer " + kAliceToken));
  EXPECT_EQ(alice.uid, 1234u);
  EXPECT_FALSE(alice.admin);
  ASSERT_OK_AND_ASSIGN(Caller admin,
                       auth.IdentifyHeader("Bearer server-token"));
  EXPECT_EQ(admin.uid, geteuid());
  EXPECT_TRUE(admin.admin);
  EXPECT_TRUE(auth.CheckHeader("Bearer " + kAliceToken).ok());
  EXPECT_EQ(auth.CheckHeader("Bearer " + std::string(32, 'b')).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

TEST(TokenAuthenticatorTest, UsersFileMistakesNameTheFileAndLine) {
  using ::testing::HasSubstr;
  TokenAuthenticator auth("server-token", DefaultEnv());
  auto load = [&](const std::string& text, int mode = 0600) {
    return auth.LoadUsersFile(UsersFile(text, mode), DefaultEnv());
  };
  EXPECT_THAT(load("1234\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 1: expected \"USER TOKEN\"")));
  EXPECT_THAT(load("\n1234 short\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 2: a token has 16 to 4096 characters, "
                                 "this one 5")));
  EXPECT_THAT(load("no-such-user-here " + kAliceToken + "\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no user \"no-such-user-here\"")));
  EXPECT_THAT(load("1 " + kAliceToken + "\n2 " + kAliceToken + "\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("line 2: this token is given to another "
                                 "user already")));
  // Every user's token in a file others may read is every user's token.
  EXPECT_THAT(load("1234 " + kAliceToken + "\n", 0640),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("with mode 0640")));
  // Nothing of a refused file was taken.
  EXPECT_FALSE(auth.CheckHeader("Bearer " + kAliceToken).ok());
}

TEST(TokenAuthenticatorTest, TokenForGivesEachUserOneTokenOfTheirOwn) {
  TokenAuthenticator auth("server-token", DefaultEnv());
  ASSERT_OK_AND_ASSIGN(std::string first, auth.TokenFor(4321, 99));
  ASSERT_OK_AND_ASSIGN(std::string again, auth.TokenFor(4321, 99));
  ASSERT_OK_AND_ASSIGN(std::string other, auth.TokenFor(4322, 99));
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  EXPECT_EQ(first.size(), 64u);  // 256 random bits, in hex.
  ASSERT_OK_AND_ASSIGN(Caller caller, auth.IdentifyHeader("Bearer " + first));
  EXPECT_EQ(caller.uid, 4321u);
  EXPECT_EQ(caller.gid, 99u);
  EXPECT_FALSE(caller.admin);
  // The server's own user could read its token file anyway.
  EXPECT_THAT(auth.TokenFor(geteuid(), getegid()),
              IsOkAndHolds(std::string("server-token")));
}

// A server whose user the Env names (here not the one that owns the file):
// the users file is refused as another user's, and the server's own token
// acts as that user and group.
TEST(TokenAuthenticatorTest, TheServersUserIsTheEnvs) {
  class AnotherUser : public EnvWrapper {
   public:
    AnotherUser() : EnvWrapper(DefaultEnv()) {}
    uint32_t EffectiveUserId() override { return 4242; }
    uint32_t EffectiveGroupId() override { return 4343; }
  };
  AnotherUser env;
  TokenAuthenticator auth("server-token", env);
  EXPECT_THAT(auth.LoadUsersFile(UsersFile("1234 " + kAliceToken + "\n"), env),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::HasSubstr(
                           "must be this server's user's (uid 4242)")));
  ASSERT_OK_AND_ASSIGN(Caller admin,
                       auth.IdentifyHeader("Bearer server-token"));
  EXPECT_EQ(admin.uid, 4242u);
  EXPECT_EQ(admin.gid, 4343u);
  EXPECT_THAT(auth.TokenFor(4242, 4343),
              IsOkAndHolds(std::string("server-token")));
}

}  // namespace
}  // namespace hptune::server
