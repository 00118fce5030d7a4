#include "src/cli/flags.h"

#include <cstdint>
#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace hptune::cli {
namespace {

ParsedArgs WithFlag(const std::string& name, const std::string& value) {
  ParsedArgs args;
  args.flags[name] = value;
  return args;
}

TEST(IntegerFlagTest, ReadsValuesWithinTheRange) {
  EXPECT_EQ(*IntegerFlag(WithFlag("max-trials", "12"), "max-trials", 1), 12);
  EXPECT_EQ(*IntegerFlag<int64_t>(WithFlag("limit", "5000000000"), "limit", 1),
            5000000000);
  EXPECT_EQ(*IntegerFlag<int64_t>(WithFlag("s", "0"), "s", 0, int64_t{10}), 0);
  EXPECT_EQ(*IntegerFlag<int64_t>(WithFlag("s", "10"), "s", 0, int64_t{10}),
            10);
}

TEST(IntegerFlagTest, ErrorsNameTheFlagTheRangeAndTheText) {
  EXPECT_EQ(IntegerFlag(WithFlag("max-trials", "0"), "max-trials", 1)
                .status()
                .message(),
            "--max-trials: expected an integer >= 1, got \"0\"");
  EXPECT_EQ(IntegerFlag(WithFlag("n", "two"), "n", 0).status().message(),
            "--n: expected an integer >= 0, got \"two\"");
  EXPECT_EQ(IntegerFlag<int64_t>(WithFlag("wait", "11"), "wait", 0, int64_t{10},
                                 "whole seconds")
                .status()
                .message(),
            "--wait: expected whole seconds from 0 to 10, got \"11\"");
  // Too large for an int is not wrapped around.
  EXPECT_EQ(IntegerFlag(WithFlag("n", "4294967297"), "n", 1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hptune::cli
