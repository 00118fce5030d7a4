#include "src/server/listen_policy.h"

#include <gtest/gtest.h>

namespace hptune::server {
namespace {

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

TEST(CheckListenAddressTest, NonLoopbackNeedsTlsOrToken) {
  EXPECT_TRUE(CheckListenAddress("127.0.0.1:7460", false, false).ok());
  EXPECT_TRUE(CheckListenAddress("0.0.0.0:7460", true, false).ok());
  EXPECT_TRUE(CheckListenAddress("0.0.0.0:7460", false, true).ok());
  absl::Status refused = CheckListenAddress("0.0.0.0:7460", false, false);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message(),
            "refusing to listen on \"0.0.0.0:7460\" without TLS or a token: "
            "anyone who reaches it could run programs on this machine; give "
            "--tls-cert and --tls-key, or --token-file, or listen on loopback "
            "(127.0.0.1:7460)");
}

TEST(CheckListenAddressTest, AddressWithoutPortIsAnError) {
  absl::Status bad = CheckListenAddress("127.0.0.1", false, false);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(),
            "--listen \"127.0.0.1\": expected HOST:PORT, e.g. 127.0.0.1:7460");
}

}  // namespace
}  // namespace hptune::server
