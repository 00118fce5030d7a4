#include "src/env/loopback.h"

#include <gtest/gtest.h>

namespace hptune {
namespace {

TEST(IsLoopbackHostTest, KnowsLoopbackFromTheRest) {
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.255.0.9"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("::"));
  EXPECT_FALSE(IsLoopbackHost("128.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.5"));
  EXPECT_FALSE(IsLoopbackHost("example.com"));
  EXPECT_FALSE(IsLoopbackHost(""));
}

}  // namespace
}  // namespace hptune
