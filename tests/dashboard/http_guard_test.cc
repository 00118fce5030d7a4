#include "src/dashboard/http_guard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/dashboard/http_address.h"
#include "tests/testing/status_matchers.h"

namespace hptune::dashboard {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

const HttpGuard kGuard("the-token", "session-key", "csrf-value");

TEST(HttpGuardTest, TheBearerTokenOrTheSessionCookieAuthenticates) {
  EXPECT_EQ(kGuard.Authenticate("Bearer the-token", ""), Credential::kBearer);
  EXPECT_EQ(kGuard.Authenticate("", "a=1; hptune_session=session-key; b=2"),
            Credential::kSession);
  EXPECT_EQ(kGuard.Authenticate("", ""), Credential::kNone);
  EXPECT_EQ(kGuard.Authenticate("Bearer the-toke", ""), Credential::kNone);
  EXPECT_EQ(kGuard.Authenticate("the-token", ""), Credential::kNone);
  // The cookie is not the token, and the token is not a cookie.
  EXPECT_EQ(kGuard.Authenticate("Bearer session-key", ""), Credential::kNone);
  EXPECT_EQ(kGuard.Authenticate("", "hptune_session=the-token"),
            Credential::kNone);
  EXPECT_EQ(kGuard.Authenticate("", "hptune_sessionx=session-key"),
            Credential::kNone);
}

TEST(HttpGuardTest, AChangeWithTheCookieNeedsTheCsrfValue) {
  EXPECT_TRUE(kGuard.AllowsChange(Credential::kBearer, ""));
  EXPECT_TRUE(kGuard.AllowsChange(Credential::kSession, "csrf-value"));
  EXPECT_FALSE(kGuard.AllowsChange(Credential::kSession, ""));
  EXPECT_FALSE(kGuard.AllowsChange(Credential::kSession, "csrf-valu"));
  EXPECT_FALSE(kGuard.AllowsChange(Credential::kNone, "csrf-value"));
}

TEST(HttpGuardTest, TheCookieIsHttpOnlyStrictAndSecureUnderTls) {
  EXPECT_EQ(kGuard.SessionCookie(false),
            "hptune_session=session-key; Path=/; HttpOnly; SameSite=Strict");
  EXPECT_THAT(kGuard.SessionCookie(true), HasSubstr("; Secure"));
}

TEST(HttpGuardTest, CreateDrawsFreshSecretsAndNeedsAToken) {
  auto a = HttpGuard::Create("t");
  auto b = HttpGuard::Create("t");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->csrf().size(), 64u);
  EXPECT_NE(a->csrf(), b->csrf());
  EXPECT_NE(a->SessionCookie(false), b->SessionCookie(false));
  EXPECT_THAT(HttpGuard::Create("").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("needs a token")));
}

TEST(HostAllowedTest, OnlyThisServersNamesPass) {
  EXPECT_TRUE(HostAllowed("127.0.0.1:7461", "127.0.0.1"));
  EXPECT_TRUE(HostAllowed("localhost:7461", "127.0.0.1"));
  EXPECT_TRUE(HostAllowed("[::1]:7461", "::1"));
  EXPECT_TRUE(HostAllowed("10.0.0.5:7461", "10.0.0.5"));
  EXPECT_TRUE(HostAllowed("anything:1", "0.0.0.0"));
  // DNS rebinding: another site's name resolving to loopback.
  EXPECT_FALSE(HostAllowed("evil.example:7461", "127.0.0.1"));
  EXPECT_FALSE(HostAllowed("", "127.0.0.1"));
}

TEST(ParseHttpAddressTest, LoopbackAlwaysOtherAddressesOnlyWithTls) {
  auto loopback = ParseHttpAddress("http", "127.0.0.1:0", false);
  ASSERT_TRUE(loopback.ok());
  EXPECT_EQ(loopback->host, "127.0.0.1");
  EXPECT_EQ(loopback->port, 0);
  EXPECT_TRUE(loopback->loopback);
  auto v6 = ParseHttpAddress("http", "[::1]:7461", false);
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_TRUE(v6->loopback);
  EXPECT_THAT(ParseHttpAddress("http", "0.0.0.0:7461", false).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--http \"0.0.0.0:7461\": refusing to serve "
                                 "the dashboard off loopback without TLS")));
  auto tls = ParseHttpAddress("http", "0.0.0.0:7461", true);
  ASSERT_TRUE(tls.ok());
  EXPECT_FALSE(tls->loopback);
}

TEST(ParseHttpAddressTest, MistakesNameTheFlagAndTheValue) {
  EXPECT_THAT(ParseHttpAddress("http", "7461", false).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--http \"7461\": expected HOST:PORT")));
  EXPECT_THAT(ParseHttpAddress("http", "127.0.0.1:70000", false).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the port must be 0")));
  EXPECT_THAT(ParseHttpAddress("http", "example.com:80", true).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("an IP address or localhost")));
}

}  // namespace
}  // namespace hptune::dashboard
