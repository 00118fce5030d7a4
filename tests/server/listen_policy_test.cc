#include "src/server/listen_policy.h"

#include <gtest/gtest.h>

#include "tests/testing/status_matchers.h"

namespace hptune::server {
namespace {

using ::hptune_testing::StatusIs;

TEST(IsLoopbackAddressTest, KnowsLoopbackFromTheRest) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:7460"));
  EXPECT_TRUE(IsLoopbackAddress("127.1.2.3:0"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:7460"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:7460"));
  EXPECT_TRUE(IsLoopbackAddress("unix:/tmp/hptune.sock"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0:7460"));
  EXPECT_FALSE(IsLoopbackAddress("[::]:7460"));
  EXPECT_FALSE(IsLoopbackAddress("10.0.0.5:7460"));
  EXPECT_FALSE(IsLoopbackAddress("example.com:7460"));
  EXPECT_FALSE(IsLoopbackAddress("128.0.0.1:7460"));
}

TEST(CheckListenAddressTest, NonLoopbackNeedsTls) {
  EXPECT_OK(CheckListenAddress("127.0.0.1:7460", false));
  EXPECT_OK(CheckListenAddress("0.0.0.0:7460", true));
  absl::Status refused = CheckListenAddress("0.0.0.0:7460", false);
  EXPECT_THAT(
      refused,
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "refusing to listen on \"0.0.0.0:7460\" without TLS: clients "
          "would send their token in the clear, and whoever read it could "
          "run programs on this machine; give --tls-cert and --tls-key, or "
          "listen on loopback (127.0.0.1:7460)"));
}

TEST(CheckListenAddressTest, AddressWithoutPortIsAnError) {
  absl::Status bad = CheckListenAddress("127.0.0.1", false);
  EXPECT_THAT(
      bad,
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "--listen \"127.0.0.1\": expected HOST:PORT, e.g. 127.0.0.1:7460"));
}

}  // namespace
}  // namespace hptune::server
