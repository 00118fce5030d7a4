#include "benchmarks/quality/trial_log.h"

#include <vector>

#include "gtest/gtest.h"

namespace hptune::quality {
namespace {

TEST(TrialLogTest, OneQuotedLinePerTrialWithItsOwnRegrets) {
  ParameterSpec y{.name = "y",
                  .type = ParameterType::kDouble,
                  .min_value = 0,
                  .max_value = 1};
  ParameterSpec c{.name = "c",
                  .type = ParameterType::kCategorical,
                  .categorical_values = {"a", "b"}};
  const TestFunction function{
      .name = "toy", .space = SearchSpace({y, c}), .optimum = -1};
  const std::vector<RunTrial> trials = {
      {.number = 1,
       .origin = "gp:seeding(1 of 4)",
       .parameters = {{"c", ParameterValue::Categorical("b")},
                      {"y", ParameterValue::Double(0.25)}},
       .value = 2,
       .reported = 2},
      {.number = 2,
       .origin = "say \"why\", briefly",
       .parameters = {{"c", ParameterValue::Categorical("a")},
                      {"y", ParameterValue::Double(0.1)}},
       .value = -0.5,
       .reported = -0.25}};
  // Parameters in the space's order (y before c), not the map's.
  EXPECT_EQ(FormatTrialsCsv("gp", function, "parallel4", 3, trials),
            "gp,toy,parallel4,3,1,\"gp:seeding(1 of 4)\",3,3,"
            "\"y=0.25;c=b\"\n"
            "gp,toy,parallel4,3,2,\"say \"\"why\"\", briefly\",0.5,0.75,"
            "\"y=0.1;c=a\"\n");
}

}  // namespace
}  // namespace hptune::quality
