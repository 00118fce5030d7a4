#include "src/dashboard/curve_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/status_matchers.h"

namespace hptune::dashboard {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Ten trials: 1..6 succeeded (loss = number), 7 and 8 stopped early, 9
// running, 10 requested (never started).
StudySnapshot Snapshot() {
  StudySnapshot s;
  s.study.spec.SetSingleMetric("loss", Goal::kMinimize);
  for (int64_t n = 1; n <= 10; ++n) {
    Trial t;
    t.number = n;
    t.state = n <= 8 ? TrialState::kSucceeded
                     : (n == 9 ? TrialState::kActive : TrialState::kRequested);
    if (n <= 9) t.start_time = Timestamp{};
    if (n <= 8) {
      t.final_measurement = Measurement{.metrics = {{"loss", double(n)}}};
    }
    t.stopped_early = n == 7 || n == 8;
    s.trials.push_back(std::make_shared<const Trial>(t));
  }
  return s;
}

std::vector<int64_t> Pick(const QueryParams& params, size_t* matching) {
  auto choice = ParseCurveChoice(params);
  EXPECT_TRUE(choice.ok()) << choice.status();
  const StudySnapshot s = Snapshot();
  CurvePick pick = PickCurveTrials(s, *choice);
  *matching = pick.matching;
  std::vector<int64_t> numbers;
  for (const Trial* t : pick.trials) numbers.push_back(t->number);
  return numbers;
}

TEST(CurveChoiceTest, PicksBestAllStoppedRunningAndSelected) {
  size_t m = 0;
  EXPECT_THAT(Pick({{"max_trials", "2"}}, &m), ElementsAre(1, 2, 9));
  EXPECT_EQ(m, 9u);  // 8 finished with a value, 1 running.
  EXPECT_THAT(Pick({{"select", "all"}}, &m),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_THAT(Pick({{"select", "stopped"}}, &m), ElementsAre(7, 8));
  EXPECT_EQ(m, 2u);
  EXPECT_THAT(Pick({{"select", "running"}}, &m), ElementsAre(9));
  EXPECT_THAT(Pick({{"select", "selected"}, {"trials", "8,3,10,99"}}, &m),
              ElementsAre(3, 8));  // 10 never ran, 99 does not exist.
}

TEST(CurveChoiceTest, AboveTheCapAnEvenSpreadKeepsTheFirstAndLast) {
  size_t m = 0;
  EXPECT_THAT(Pick({{"select", "all"}, {"max_trials", "3"}}, &m),
              ElementsAre(1, 5, 9));
  EXPECT_EQ(m, 9u);
}

TEST(CurveChoiceTest, EachMistakeNamesTheParameterAndTheValue) {
  EXPECT_THAT(ParseCurveChoice({{"select", "worst"}}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("select \"worst\": expected best, all")));
  EXPECT_THAT(ParseCurveChoice({{"max_trials", "0"}}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("max_trials \"0\"")));
  EXPECT_THAT(ParseCurveChoice({{"select", "selected"}}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("select=selected needs the trial numbers")));
  EXPECT_THAT(
      ParseCurveChoice({{"select", "selected"}, {"trials", "1,x"}}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("trials \"1,x\": \"x\" is not a trial number")));
  EXPECT_THAT(ParseCurveChoice({{"trials", "1"}}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("only with select=selected")));
}

}  // namespace
}  // namespace hptune::dashboard
