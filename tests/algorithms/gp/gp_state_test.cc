#include "algorithms/gp/gp_state.h"

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

TEST(GpStateTest, RoundTripsExactly) {
  GpState state;
  state.halton_index = 12;
  state.suggest_calls = 40;
  state.fit_rows = 33;
  state.theta = {std::log(0.3), -1.0 / 3.0, 1e-300, -0.0, 4.5};
  const std::string text = FormatGpState(state);
  EXPECT_EQ(text.substr(0, 41), "gp1;halton=12;calls=40;fit_rows=33;theta=");
  EXPECT_NE(text.find(",-0x1.5555555555555p-2,"), std::string::npos) << text;
  auto back = ParseGpState(text, 5);
  ASSERT_OK(back);
  EXPECT_EQ(*back, state);
}

TEST(GpStateTest, EmptyIsTheInitialState) {
  auto state = ParseGpState("", 4);
  ASSERT_OK(state);
  EXPECT_EQ(*state, GpState());
  GpState unfitted;
  unfitted.halton_index = 3;
  auto back = ParseGpState(FormatGpState(unfitted), 4);
  ASSERT_OK(back);
  EXPECT_EQ(*back, unfitted);
}

TEST(GpStateTest, ReadsTheQuasiRandomStateOfOlderStudies) {
  auto state = ParseGpState("halton:index=7", 4);
  ASSERT_OK(state);
  EXPECT_EQ(state->halton_index, 7u);
  EXPECT_TRUE(state->theta.empty());
}

TEST(GpStateTest, RefusesForeignStates) {
  for (const char* text : {"grid:cursor=3", "halton:index=x",
                           "gp2;halton=1;calls=1;fit_rows=1;theta=",
                           "gp1;halton=1;calls=1;fit_rows=1",
                           "gp1;halton=-1;calls=1;fit_rows=1;theta=",
                           "gp1;calls=1;halton=1;fit_rows=1;theta=",
                           "gp1;halton=1;calls=1;fit_rows=1;theta=0x1p+0,zz",
                           "gp1;halton=1;calls=1;fit_rows=1;theta=1p+0,1p+0"}) {
    auto state = ParseGpState(text, 2);
    EXPECT_THAT(
        state,
        StatusIs(absl::StatusCode::kInvalidArgument,
                 HasSubstr(std::string("GP designer: cannot restore state \"") +
                           text + "\"")))
        << text;
  }
}

TEST(GpStateTest, RefusesHyperparametersOfALargerSpace) {
  GpState state;
  state.theta = {1, 2, 3, 4, 5, 6};
  auto parsed = ParseGpState(FormatGpState(state), 5);
  EXPECT_THAT(
      parsed,
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("theta has 6 entries, this search space needs 5")));
}

// A parameter joined the space (define-by-run): the counters go on, the
// hyperparameters of the smaller space are dropped for a fresh fit.
TEST(GpStateTest, DropsHyperparametersOfTheSpaceBeforeItGrew) {
  GpState state{.halton_index = 7, .suggest_calls = 9, .fit_rows = 12};
  state.theta = {1, 2, 3};
  state.other_thetas = {{4, 5, 6}};
  auto parsed = ParseGpState(FormatGpState(state), 4);
  ASSERT_OK(parsed);
  EXPECT_EQ(parsed->halton_index, 7u);
  EXPECT_EQ(parsed->suggest_calls, 9u);
  EXPECT_TRUE(parsed->theta.empty());
  ASSERT_EQ(parsed->other_thetas.size(), 1u);
  EXPECT_TRUE(parsed->other_thetas[0].empty());
}

TEST(GpStateTest, RefusesNonFiniteHyperparameters) {
  auto parsed = ParseGpState("gp1;halton=0;calls=0;fit_rows=0;theta=0xinf", 1);
  EXPECT_THAT(
      parsed,
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr(
                   "theta entry \"0xinf\" is not a finite hexadecimal float")));
}

TEST(GpFitTest, RoundTripsExactlyWithUnfittedColumns) {
  GpFit fit{.rows = 330,
            .thetas = {{0.1, -2.5, 1e-300}, {}, {3, 1.0 / 3, -0.0}}};
  const std::string text = FormatGpFit(fit);
  EXPECT_EQ(text.substr(0, 24), "gpfit1;rows=330;theta=0x");
  auto parsed = ParseGpFit(text, 3);
  ASSERT_OK(parsed);
  EXPECT_EQ(*parsed, fit);
}

TEST(GpFitTest, RefusesWhatIsNotAFitOfThisSpace) {
  for (const char* text :
       {"", "gp1;halton=0;calls=0;fit_rows=0;theta=", "gpfit1;rows=x;theta=",
        "gpfit1;rows=3;theta1=0x1p+0"}) {
    EXPECT_THAT(ParseGpFit(text, 1),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("expected \"gpfit1;rows=<n>")))
        << text;
  }
  EXPECT_THAT(ParseGpFit("gpfit1;rows=3;theta=0x1p+0,0x1p+1", 1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("theta has 2 entries, this search space "
                                 "needs 1")));
  // A fit of the space before a parameter joined it fitted nothing of this
  // one.
  auto older = ParseGpFit("gpfit1;rows=3;theta=0x1p+0,0x1p+1", 3);
  ASSERT_OK(older);
  EXPECT_EQ(older->thetas, std::vector<std::vector<double>>{{}});
}

}  // namespace
}  // namespace hptune::algorithms::gp
