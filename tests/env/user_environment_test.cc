// Tests for UserEnvironment and IsServerUsersPlace: the identity variables
// of another user's replica, read from the real user database.
#include "hptune/env/user_environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>

namespace hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(UserEnvironmentTest, AKnownUserGetsItsNameAndHomeFromTheDatabase) {
  const struct passwd* root = getpwuid(0);
  ASSERT_NE(root, nullptr);
  EXPECT_THAT(UserEnvironment(0, "/unused"),
              ElementsAre(Pair("HOME", root->pw_dir), Pair("LOGNAME", "root"),
                          Pair("USER", "root")));
}

TEST(UserEnvironmentTest, AnUnknownUidGetsTheFallbackHomeAndItsNumber) {
  // No user database entry holds a uid this high (the kernel's limit is
  // 2^32 - 2).
  ASSERT_EQ(getpwuid(4000000001u), nullptr);
  EXPECT_THAT(
      UserEnvironment(4000000001u, "/srv/runs/job/1"),
      ElementsAre(Pair("HOME", "/srv/runs/job/1"),
                  Pair("LOGNAME", "4000000001"), Pair("USER", "4000000001")));
}

TEST(UserEnvironmentTest, OnlyTheServerUsersOwnPlacesAreLeftOut) {
  EXPECT_TRUE(IsServerUsersPlace("XDG_RUNTIME_DIR"));
  EXPECT_TRUE(IsServerUsersPlace("XDG_CACHE_HOME"));
  EXPECT_TRUE(IsServerUsersPlace("MAIL"));
  EXPECT_FALSE(IsServerUsersPlace("PATH"));
  EXPECT_FALSE(IsServerUsersPlace("CUDA_VISIBLE_DEVICES"));
  EXPECT_FALSE(IsServerUsersPlace("MAILBOX"));
}

}  // namespace
}  // namespace hptune
