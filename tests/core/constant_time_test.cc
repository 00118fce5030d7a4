#include "src/core/constant_time.h"

#include <gtest/gtest.h>

#include <string>

namespace hptune {
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

}  // namespace
}  // namespace hptune
