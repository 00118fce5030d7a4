// Category turns (category_turns.h): which categorical value is due a
// turn for a history, the acquisition restricted to its branch, and the GP
// designer giving an abandoned category its turn.
#include "algorithms/gp/category_turns.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "algorithms/encoding/gp_features.h"
#include "algorithms/gp/gp_designer.h"
#include "gtest/gtest.h"
#include "tests/algorithms/gp/designer_options.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms::gp {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::TrialAt;

constexpr double kPending = std::numeric_limits<double>::quiet_NaN();

// Appends a SUCCEEDED trial with `parameters` and metric "loss" = `loss`,
// numbered and ended in order.
void AddTrial(std::vector<Trial>& trials, ParameterAssignment parameters,
              double loss) {
  Trial t = TrialAt(std::move(parameters));
  t.number = static_cast<int64_t>(trials.size()) + 1;
  t.end_time = Timestamp{} + std::chrono::seconds(t.number);
  Measurement m{.step = 1};
  m.metrics["loss"] = loss;
  t.final_measurement = m;
  trials.push_back(std::move(t));
}

StudySpec Minimize(SearchSpace space) {
  StudySpec spec;
  spec.search_space = std::move(space);
  spec.SetSingleMetric("loss", Goal::kMinimize);
  return spec;
}

// The GP designer's one suggestion (seed `seed`) after `completed`.
absl::StatusOr<Suggestion> SuggestOne(const StudySpec& spec, uint64_t seed,
                                      const std::vector<Trial>& completed) {
  absl::StatusOr<std::unique_ptr<GpDesigner>> designer =
      GpDesigner::Create(spec, OptionsOf(spec), seed);
  if (!designer.ok()) return designer.status();
  if (absl::Status s = (*designer)->Update(completed, {}); !s.ok()) return s;
  absl::StatusOr<std::vector<Suggestion>> suggestions = (*designer)->Suggest(1);
  if (!suggestions.ok()) return suggestions.status();
  if (suggestions->size() != 1) {
    return absl::InternalError("expected one suggestion");
  }
  return suggestions->front();
}

// c in {a, b, c} (feature 0) and x (feature 1).
FeatureEncoding ThreeValues() {
  auto encoding = FeatureEncoding::Create(SearchSpace(
      {CategoricalParam("c", {"a", "b", "c"}), DoubleParam("x", 0, 1)}));
  EXPECT_OK(encoding);
  return *encoding;
}

struct History {
  std::vector<std::vector<double>> rows;
  std::vector<double> values;  // Higher is better; kPending: pending.

  void Add(double category, double value) {
    rows.push_back({category, 0.5});
    values.push_back(value);
  }
};

TEST(TurnWindowTest, GrowsWithTheHistory) {
  EXPECT_EQ(TurnWindow(3, 10), 3);  // kTurnWindowPerCategory * K.
  EXPECT_EQ(TurnWindow(3, 15), 3);
  EXPECT_EQ(TurnWindow(3, 40), 10);  // A quarter of the rows.
  EXPECT_EQ(TurnWindow(2, 100), 25);
}

TEST(TurnWindowTest, ASweptValuesWindowIsShorter) {
  EXPECT_EQ(SweepWindow(3, 10), 3);
  EXPECT_EQ(SweepWindow(3, 40), 5);  // An eighth; TurnWindow is 10.
  EXPECT_EQ(SweepWindow(2, 120), 15);
}

TEST(DueCategoryTurnTest, NoneBeforeAWindowOfRows) {
  History h;
  for (int i = 0; i < 2; ++i) h.Add(0, i);  // Only a, 2 rows < window 3.
  EXPECT_FALSE(DueCategoryTurn(ThreeValues(), h.rows, h.values));
  h.Add(0, 2);
  EXPECT_TRUE(DueCategoryTurn(ThreeValues(), h.rows, h.values));
}

TEST(DueCategoryTurnTest, TheValueThatWaitedLongestAndNeverTheIncumbents) {
  History h;
  h.Add(2, 1);  // c, then b, then 8 trials of a (the best).
  h.Add(1, 2);
  for (int i = 0; i < 8; ++i) h.Add(0, 10 + i);
  auto turn = DueCategoryTurn(ThreeValues(), h.rows, h.values);
  ASSERT_TRUE(turn);
  EXPECT_EQ(turn->feature, 0);
  EXPECT_EQ(turn->value, 2);  // c waited 9 rows, b 8.

  // Once c holds the best value, b's turn is due and c's never.
  h.Add(2, 100);
  turn = DueCategoryTurn(ThreeValues(), h.rows, h.values);
  ASSERT_TRUE(turn);
  EXPECT_EQ(turn->value, 1);
}

TEST(DueCategoryTurnTest, NoneWhileEveryValueIsTriedWithinItsWindow) {
  History h;
  for (int i = 0; i < 30; ++i) h.Add(i % 3, 1);
  EXPECT_FALSE(DueCategoryTurn(ThreeValues(), h.rows, h.values));
  // 40 rows: the window is 10 (a quarter of them), and b, which waited 8,
  // is not due; it would be with the window of 7 that 30 rows give.
  const double next[] = {0, 1, 0, 2, 0, 2, 0, 2, 0, 0};
  for (int i = 0; i < 10; ++i) h.Add(next[i], next[i] == 0 ? 100 + i : 1);
  EXPECT_FALSE(DueCategoryTurn(ThreeValues(), h.rows, h.values));
  h.Add(0, 200);
  h.Add(0, 201);
  EXPECT_EQ(DueCategoryTurn(ThreeValues(), h.rows, h.values)->value, 1);
}

TEST(DueCategoryTurnTest, ATurnThatClosedTheGapGetsAnotherAtOnce) {
  History h;
  for (int i = 0; i < 16; ++i) h.Add(0, 10);  // a: 10.
  h.Add(2, 0);                                // c: 0, waits 11 rows below.
  h.Add(1, 0);  // b: 0, then 4 (closes 40% of b's gap to 10).
  h.Add(1, 4);
  for (int i = 0; i < 9; ++i) h.Add(0, 10);
  // b's latest is 10 rows back (window 7): no streak; c waited longest.
  EXPECT_EQ(DueCategoryTurn(ThreeValues(), h.rows, h.values)->value, 2);

  History recent = h;
  recent.rows.resize(recent.rows.size() - 8);
  recent.values.resize(recent.values.size() - 8);
  // b's improving trial is 1 row back (window 5, b holds 2 of the last 5):
  // b again, though c waited longer.
  EXPECT_EQ(DueCategoryTurn(ThreeValues(), recent.rows, recent.values)->value,
            1);

  // A gain of 5% of the gap is no streak, and c has waited only 3 rows.
  recent.values[18] = 0.5;
  EXPECT_FALSE(DueCategoryTurn(ThreeValues(), recent.rows, recent.values));
}

TEST(DueCategoryTurnTest, AValueWhoseTurnWouldSweepWaitsItsSweepWindow) {
  History h;
  for (int i = 0; i < 30; ++i) h.Add(i % 3, 1);
  h.Add(1, 1);  // b, c, then 8 trials of a, the best: 40 rows, window 10.
  h.Add(2, 1);
  for (int i = 0; i < 8; ++i) h.Add(0, 10);
  EXPECT_FALSE(DueCategoryTurn(ThreeValues(), h.rows, h.values));
  // b waited 9 rows, c 8; b is due in its sweep window of 5.
  const SweptBranch b_swept = [](CategoryTurn t) { return t.value == 1; };
  EXPECT_EQ(DueCategoryTurn(ThreeValues(), h.rows, h.values, b_swept)->value,
            1);
  const SweptBranch none = [](CategoryTurn) { return false; };
  EXPECT_FALSE(DueCategoryTurn(ThreeValues(), h.rows, h.values, none));
}

TEST(HasSweepCoordinateTest, AContinuousFeatureThatIsNotConditional) {
  EXPECT_TRUE(HasSweepCoordinate(ThreeValues()));
  ParameterSpec x = DoubleParam("x", 0, 1);
  x.condition = ParentCondition{.parent = "c", .categorical_values = {"a"}};
  auto conditional_only = FeatureEncoding::Create(
      SearchSpace({CategoricalParam("c", {"a", "b"}), x}));
  ASSERT_OK(conditional_only);
  EXPECT_FALSE(HasSweepCoordinate(*conditional_only));
}

TEST(DueCategoryTurnTest, PendingRowsCountAsTriedButNotAsGains) {
  History h;
  for (int i = 0; i < 20; ++i) h.Add(0, 10);
  h.Add(2, 1);
  h.Add(1, 0);
  h.Add(1, 4);  // b's gain: another turn is due.
  EXPECT_EQ(DueCategoryTurn(ThreeValues(), h.rows, h.values)->value, 1);
  h.Add(1, kPending);  // That turn is running: nothing more for b.
  EXPECT_FALSE(DueCategoryTurn(ThreeValues(), h.rows, h.values));
}

TEST(DueCategoryTurnTest, CountsOnlyRowsWhereTheFeatureIsActive) {
  // booster in {gbdt, dart} exists only when model = tree.
  ParameterSpec booster = CategoricalParam("booster", {"gbdt", "dart"});
  booster.condition =
      ParentCondition{.parent = "model", .categorical_values = {"tree"}};
  auto encoding = FeatureEncoding::Create(
      SearchSpace({CategoricalParam("model", {"tree", "linear"}), booster}));
  ASSERT_OK(encoding);
  const double inactive = (*encoding).features()[1].imputed;
  ASSERT_EQ(inactive, 2);
  std::vector<std::vector<double>> rows;
  std::vector<double> values;
  // dart, linear, gbdt, linear: 3 rows after dart, but 1 of them active
  // for booster, whose window is 2 (two values).
  for (const auto& [row, value] :
       std::vector<std::pair<std::vector<double>, double>>{
           {{0, 1}, 1}, {{1, inactive}, 0}, {{0, 0}, 5}, {{1, inactive}, 0}}) {
    rows.push_back(row);
    values.push_back(value);
  }
  // model: linear was tried 0 rows ago, so no turn for model; booster: dart
  // waited 1 active row (< 2).
  EXPECT_FALSE(DueCategoryTurn(*encoding, rows, values));
  rows.push_back({0, 0});
  values.push_back(5);
  auto turn = DueCategoryTurn(*encoding, rows, values);
  ASSERT_TRUE(turn);
  EXPECT_EQ(turn->feature, 1);
  EXPECT_EQ(turn->value, 1);
}

TEST(BranchSeenNarrowlyTest, ComparesTheBranchsSpanOfMeansWithAllRows) {
  RowMatrix rows(5, 2);
  rows << 0, 0.1,  //
      0, 0.5,      //
      0, 0.9,      //
      2, 0.2,      //
      2, 0.8;
  const CategoryTurn c{.feature = 0, .value = 2};
  Eigen::VectorXd mean(5);
  mean << 0, 1, 2, 0.5, 1.5;  // c spans 1 of 2: seen widely.
  EXPECT_FALSE(BranchSeenNarrowly(rows, mean, c));
  mean << 0, 1, 2, 1.0, 1.5;  // 0.5 of 2, under kNarrowBranchSpan.
  EXPECT_TRUE(BranchSeenNarrowly(rows, mean, c));
  // Rows past the means are pending: c has one observed trial.
  mean.conservativeResize(4);
  EXPECT_TRUE(BranchSeenNarrowly(rows, mean, c));
  // b has no observed trial.
  EXPECT_FALSE(BranchSeenNarrowly(rows, mean, {.feature = 0, .value = 1}));
}

TEST(SweepPointsTest, MidpointsOfTheBranchsGapsAlongEachCoordinate) {
  auto encoding = FeatureEncoding::Create(
      SearchSpace({CategoricalParam("c", {"a", "b", "c"}),
                   DoubleParam("x", 0, 1), DoubleParam("y", 0, 1)}));
  ASSERT_OK(encoding);
  RowMatrix rows(3, 3);
  rows << 2, 0.2, 0.5,  // c's trials: x at 0.2 and 0.6, y at 0.5 twice.
      2, 0.6, 0.5,      //
      0, 0.9, 0.1;      // a's trial makes no gap in c's branch.
  const std::vector<double> base = {2, 0.2, 0.5};
  const std::vector<std::vector<double>> expected = {
      {2, 0.1, 0.5},
      {2, 0.4, 0.5},
      {2, 0.8, 0.5},  // x: 0-0.2-0.6-1.
      {2, 0.2, 0.25},
      {2, 0.2, 0.75}};  // y: 0-0.5-1.
  const auto points =
      SweepPoints(*encoding, rows, {.feature = 0, .value = 2}, base);
  ASSERT_EQ(points.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    for (size_t j = 0; j < 3; ++j) {
      EXPECT_NEAR(points[i][j], expected[i][j], 1e-12) << i << "," << j;
    }
  }
}

TEST(DueCategoryTurnTest, NoneWithoutACategoricalOrAnObservation) {
  auto encoding =
      FeatureEncoding::Create(SearchSpace({DoubleParam("x", 0, 1)}));
  ASSERT_OK(encoding);
  std::vector<std::vector<double>> rows(20, std::vector<double>{0.5});
  std::vector<double> values(20, 1.0);
  EXPECT_FALSE(DueCategoryTurn(*encoding, rows, values));

  History h;
  for (int i = 0; i < 10; ++i) h.Add(0, kPending);
  EXPECT_FALSE(DueCategoryTurn(ThreeValues(), h.rows, h.values));
}

// Scores x[1] everywhere, with gradient 1 in it.
class Slope : public AcquisitionFunction {
 public:
  void EvaluateBatch(const RowMatrix& xs,
                     Eigen::VectorXd& values) const override {
    values = xs.col(1);
  }
  double EvaluateWithGradient(std::span<const double> x,
                              std::span<double> gradient) const override {
    gradient[0] = 0;
    gradient[1] = 1;
    return x[1];
  }
};

TEST(CategoryTurnAcquisitionTest, ScoresOnlyItsBranch) {
  const Slope slope;
  const CategoryTurnAcquisition turn(slope, {.feature = 0, .value = 1});
  RowMatrix xs(3, 2);
  xs << 0, 0.25, 1, 0.5, 2, 0.75;
  Eigen::VectorXd values;
  turn.EvaluateBatch(xs, values);
  EXPECT_EQ(values[0], CategoryTurnAcquisition::kOutside);
  EXPECT_EQ(values[1], 0.5);
  EXPECT_EQ(values[2], CategoryTurnAcquisition::kOutside);

  std::vector<double> gradient(2, 9);
  EXPECT_EQ(turn.EvaluateWithGradient(std::vector<double>{1, 0.5}, gradient),
            0.5);
  EXPECT_EQ(gradient[1], 1);
  EXPECT_EQ(turn.EvaluateWithGradient(std::vector<double>{2, 0.5}, gradient),
            CategoryTurnAcquisition::kOutside);
  EXPECT_EQ(gradient, (std::vector<double>{0, 0}));
}

// The designer: after three poor adam trials and seventeen sgd ones, the
// next suggestion is adam's turn, searched in adam's branch.
TEST(CategoryTurnDesignerTest, AnAbandonedCategoryGetsTheNextSuggestion) {
  ParameterSpec sgd_lr = DoubleParam("sgd_lr", 1e-4, 1, ScaleType::kLog);
  sgd_lr.condition =
      ParentCondition{.parent = "optimizer", .categorical_values = {"sgd"}};
  ParameterSpec adam_lr = DoubleParam("adam_lr", 1e-5, 1e-1, ScaleType::kLog);
  adam_lr.condition =
      ParentCondition{.parent = "optimizer", .categorical_values = {"adam"}};
  const StudySpec spec = Minimize(SearchSpace(
      {CategoricalParam("optimizer", {"sgd", "adam"}), sgd_lr, adam_lr}));
  std::vector<Trial> completed;
  auto add = [&](const std::string& optimizer, double lr, double loss) {
    AddTrial(completed,
             {{"optimizer", ParameterValue::Categorical(optimizer)},
              {optimizer + "_lr", ParameterValue::Double(lr)}},
             loss);
  };
  add("adam", 1e-5, 0.9);
  add("adam", 1e-1, 0.8);
  add("adam", 3e-2, 0.7);
  for (int i = 0; i < 17; ++i) {
    const double lr = 1e-2 * std::pow(1.2, i - 8);
    const double d = std::log10(lr) + 2;
    add("sgd", lr, 0.3 + d * d);
  }
  absl::StatusOr<Suggestion> s = SuggestOne(spec, 3, completed);
  ASSERT_OK(s);
  EXPECT_EQ(s->origin, "gp-logei-category");
  EXPECT_EQ(s->parameters.at("optimizer").AsString(), "adam");
  EXPECT_OK(spec.search_space.CheckAssignment(s->parameters));

  // With adam tried a trial ago, log EI chooses as before.
  add("adam", 1e-3, 0.75);
  s = SuggestOne(spec, 3, completed);
  ASSERT_OK(s);
  EXPECT_NE(s->origin, "gp-logei-category");
}

// A value whose branch is one point, used already, gives way to log EI or
// pure exploration instead of sending the suggestion to the quasi-random
// fallback.
TEST(CategoryTurnDesignerTest, AUsedUpBranchGivesWay) {
  ParameterSpec x = DoubleParam("x", 0, 1);
  x.condition = ParentCondition{.parent = "c", .categorical_values = {"a"}};
  const StudySpec spec =
      Minimize(SearchSpace({CategoricalParam("c", {"a", "none"}), x}));
  std::vector<Trial> completed;
  auto add = [&](ParameterAssignment a, double loss) {
    AddTrial(completed, std::move(a), loss);
  };
  add({{"c", ParameterValue::Categorical("none")}}, 1);
  for (int i = 0; i < 12; ++i) {
    const double v = (i + 0.5) / 12;
    add({{"c", ParameterValue::Categorical("a")},
         {"x", ParameterValue::Double(v)}},
        (v - 0.3) * (v - 0.3));
  }
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    absl::StatusOr<Suggestion> s = SuggestOne(spec, seed, completed);
    ASSERT_OK(s);
    EXPECT_TRUE(s->origin == "gp-logei" || s->origin == "gp-pe") << s->origin;
    EXPECT_EQ(s->parameters.at("c").AsString(), "a");
  }
}

}  // namespace
}  // namespace hptune::algorithms::gp
