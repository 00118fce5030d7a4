#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "algorithms/common/splitmix64.h"
#include "algorithms/encoding/assignment_set.h"
#include "algorithms/sampling/sampling_designer.h"
#include "tests/algorithms/star_discrepancy.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DiscreteParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::IntegerParam;
using ::hptune::algorithms::testing::StarDiscrepancy2d;
using ::hptune::algorithms::testing::TrialAt;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

std::unique_ptr<SamplingDesigner> MakeHalton(const SearchSpace& space,
                                             uint64_t seed) {
  auto designer = CreateQuasiRandomDesigner(space, seed);
  EXPECT_OK(designer);
  return designer.ok() ? *std::move(designer) : nullptr;
}

SearchSpace UnitSquare() {
  return SearchSpace({DoubleParam("x", 0, 1), DoubleParam("y", 0, 1)});
}

SearchSpace MixedSpace() {
  return SearchSpace(
      {DoubleParam("lr", 1e-5, 1e-1, ScaleType::kLog),
       IntegerParam("hidden", 40, 400), DiscreteParam("layers", {1, 2, 4}),
       CategoricalParam("cell", {"GRU", "LSTM"}),
       DoubleParam("momentum", 0.5, 0.99, ScaleType::kReverseLog)});
}

std::vector<ParameterAssignment> Points(
    const std::vector<Suggestion>& suggestions) {
  std::vector<ParameterAssignment> points;
  for (const auto& s : suggestions) points.push_back(s.parameters);
  return points;
}

std::vector<std::array<double, 2>> SquarePoints(
    const std::vector<Suggestion>& suggestions) {
  std::vector<std::array<double, 2>> points;
  for (const auto& s : suggestions) {
    points.push_back(
        {s.parameters.at("x").AsDouble(), s.parameters.at("y").AsDouble()});
  }
  return points;
}

// The star discrepancy of the first 256 points, against independent uniform
// points (SplitMix64, fixed seeds) and Niederreiter's (1992, Theorem 3.6)
// bound for the Halton sequence in bases 2 and 3:
//   D*_N < 2 / N + (1 / N) prod_{b in {2, 3}} ((b - 1) / (2 ln b) ln N +
//   (b + 1) / 2) ~ 0.159 for N = 256.
// Random points of this count sit near 0.05 to 0.1 (D* shrinks like
// sqrt(log log N / N)); Halton's shrinks like (log N)^2 / N.
TEST(QuasiRandomDesignerTest, FirstPointsHaveLowDiscrepancy) {
  constexpr int kN = 256;
  double random_min = 1;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    SplitMix64 rng(seed);
    std::vector<std::array<double, 2>> random_points;
    for (int i = 0; i < kN; ++i) {
      double x = rng.NextUnit();
      random_points.push_back({x, rng.NextUnit()});
    }
    random_min = std::min(random_min, StarDiscrepancy2d(random_points));
  }
  double product = 1;
  for (int b : {2, 3}) {
    product *= (b - 1) / (2 * std::log(b)) * std::log(kN) + (b + 1) / 2.0;
  }
  const double bound = (2 + product) / kN;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    auto designer = MakeHalton(UnitSquare(), seed);
    double halton = StarDiscrepancy2d(SquarePoints(*designer->Suggest(kN)));
    EXPECT_LT(halton, bound) << "seed " << seed;
    // Well below the best of five random sets.
    EXPECT_LT(halton, random_min / 2) << "seed " << seed;
  }
}

TEST(QuasiRandomDesignerTest, CategoriesAreBalancedByStratification) {
  // The first coordinate is base 2: the first 8 points fill each eighth of
  // [0, 1) once, so each of 4 categories comes up exactly twice.
  SearchSpace space(
      {CategoricalParam("c", {"a", "b", "c", "d"}), DoubleParam("x", 0, 1)});
  for (uint64_t seed : {1, 2, 3}) {
    auto designer = MakeHalton(space, seed);
    std::map<std::string, int> counts;
    const std::vector<Suggestion> first = *designer->Suggest(8);
    for (const auto& s : first) {
      ++counts[s.parameters.at("c").AsString()];
    }
    EXPECT_EQ(counts, (std::map<std::string, int>{
                          {"a", 2}, {"b", 2}, {"c", 2}, {"d", 2}}));
  }
}

TEST(QuasiRandomDesignerTest, SameSeedSameSuggestionsOtherSeedOthers) {
  auto a = MakeHalton(MixedSpace(), 5);
  auto b = MakeHalton(MixedSpace(), 5);
  auto c = MakeHalton(MixedSpace(), 6);
  auto from_a = Points(*a->Suggest(20));
  EXPECT_EQ(from_a, Points(*b->Suggest(20)));
  EXPECT_NE(from_a, Points(*c->Suggest(20)));
}

TEST(QuasiRandomDesignerTest, RestoredDesignerContinuesTheSequence) {
  auto whole = MakeHalton(MixedSpace(), 9);
  auto all = *whole->Suggest(10);
  EXPECT_EQ(all[0].origin, "halton[0]");
  EXPECT_EQ(all[9].origin, "halton[9]");

  auto first = MakeHalton(MixedSpace(), 9);
  auto head = Points(*first->Suggest(4));
  std::string state = first->SaveState();
  EXPECT_EQ(state, "halton:index=4");

  auto restored = MakeHalton(MixedSpace(), 9);
  ASSERT_OK(restored->RestoreState(state));
  auto tail = *restored->Suggest(6);
  EXPECT_EQ(tail[0].origin, "halton[4]");
  auto tail_points = Points(tail);
  head.insert(head.end(), tail_points.begin(), tail_points.end());
  EXPECT_EQ(head, Points(all));
}

TEST(QuasiRandomDesignerTest, SuggestionsAreFeasible) {
  SearchSpace space = MixedSpace();
  auto designer = MakeHalton(space, 4);
  const std::vector<Suggestion> suggestions = *designer->Suggest(500);
  for (const auto& s : suggestions) {
    ASSERT_OK(space.CheckAssignment(s.parameters)) << s.origin;
  }
}

TEST(QuasiRandomDesignerTest, TinySpaceGivesEachPointOnceThenIsExhausted) {
  SearchSpace space(
      {IntegerParam("a", 1, 2), CategoricalParam("b", {"x", "y", "z"})});
  auto designer = MakeHalton(space, 3);
  auto first = *designer->Suggest(4);
  ASSERT_EQ(first.size(), 4u);
  std::vector<Trial> completed;
  for (const auto& s : first) completed.push_back(TrialAt(s.parameters));
  // One of the remaining two is pending.
  auto pending = *designer->Suggest(1);
  ASSERT_EQ(pending.size(), 1u);
  std::vector<Trial> active = {
      TrialAt(pending[0].parameters, TrialState::kActive)};
  ASSERT_OK(designer->Update(completed, active));
  auto last = *designer->Suggest(5);
  ASSERT_EQ(last.size(), 1u);
  AssignmentSet seen = AssignmentSet::FromTrials(completed, active);
  EXPECT_TRUE(seen.Insert(last[0].parameters));
  completed.push_back(TrialAt(last[0].parameters));
  ASSERT_OK(designer->Update(completed, active));
  EXPECT_TRUE(designer->Suggest(5)->empty());
}

TEST(QuasiRandomDesignerTest, RestoreRefusesAnotherDesignersState) {
  auto designer = MakeHalton(MixedSpace(), 1);
  absl::Status status = designer->RestoreState("random:draws=3");
  EXPECT_THAT(
      status,
      StatusIs(absl::StatusCode::kInvalidArgument,
               "halton designer: cannot restore state \"random:draws=3\": "
               "expected \"halton:index=<count>\""));
}

TEST(QuasiRandomDesignerTest, TooManyParametersIsAClearError) {
  std::vector<ParameterSpec> specs;
  for (int i = 0; i <= 1000; ++i) {
    specs.push_back(DoubleParam("p" + std::to_string(i), 0, 1));
  }
  auto designer = CreateQuasiRandomDesigner(SearchSpace(specs), 1);
  EXPECT_THAT(designer,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("QUASI_RANDOM_SEARCH supports at most 1000 "
                                 "parameters, got 1001")));
}

}  // namespace
}  // namespace hptune::algorithms
