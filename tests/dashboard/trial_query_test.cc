#include "src/dashboard/trial_query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/status_matchers.h"

namespace hptune::dashboard {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

StudySpec Spec() {
  StudySpec spec;
  spec.SetSingleMetric("acc", Goal::kMaximize);
  spec.search_space = SearchSpace({{.name = "lr",
                                    .type = ParameterType::kDouble,
                                    .min_value = 1e-4,
                                    .max_value = 1,
                                    .scale = ScaleType::kLog},
                                   {.name = "opt",
                                    .type = ParameterType::kCategorical,
                                    .categorical_values = {"adam", "sgd"}}});
  return spec;
}

std::shared_ptr<const Trial> Make(int64_t number, TrialState state,
                                  std::optional<double> acc, double lr,
                                  std::string opt) {
  Trial trial;
  trial.number = number;
  trial.state = state;
  trial.parameters = {{"lr", ParameterValue::Double(lr)},
                      {"opt", ParameterValue::Categorical(std::move(opt))}};
  // "std": a metric the trainer reports besides the objective.
  if (acc) {
    trial.final_measurement =
        Measurement{.metrics = {{"acc", *acc}, {"std", 1.0 - *acc}}};
  }
  trial.client_id = "job7/slot-" + std::to_string(number % 3);
  return std::make_shared<const Trial>(trial);
}

std::vector<std::shared_ptr<const Trial>> Trials() {
  return {Make(1, TrialState::kSucceeded, 0.5, 0.1, "adam"),
          Make(2, TrialState::kSucceeded, 0.9, 0.01, "sgd"),
          Make(3, TrialState::kFailed, std::nullopt, 0.5, "adam"),
          Make(4, TrialState::kSucceeded, 0.7, 0.001, "sgd"),
          Make(5, TrialState::kActive, std::nullopt, 0.2, "adam")};
}

std::vector<int64_t> Numbers(const std::vector<const Trial*>& trials) {
  std::vector<int64_t> numbers;
  for (const Trial* trial : trials) numbers.push_back(trial->number);
  return numbers;
}

std::vector<int64_t> Select(const QueryParams& params) {
  auto query = ParseTrialQuery(params, Spec());
  EXPECT_TRUE(query.ok()) << query.status();
  return Numbers(SelectTrials(Trials(), Spec(), *query));
}

TEST(TrialQueryTest, SortsByValueWithTrialsWithoutOneLast) {
  EXPECT_THAT(Select({{"sort", "value"}}), ElementsAre(1, 4, 2, 3, 5));
  EXPECT_THAT(Select({{"sort", "value"}, {"order", "desc"}}),
              ElementsAre(2, 4, 1, 3, 5));
  EXPECT_THAT(Select({{"order", "desc"}}), ElementsAre(5, 4, 3, 2, 1));
  EXPECT_THAT(Select({{"sort", "param:lr"}}), ElementsAre(4, 2, 1, 5, 3));
}

// A category sorts by its text, ties by number; a state by its name.
TEST(TrialQueryTest, SortsByACategoryAndByState) {
  EXPECT_THAT(Select({{"sort", "param:opt"}}), ElementsAre(1, 3, 5, 2, 4));
  EXPECT_THAT(Select({{"sort", "param:opt"}, {"order", "desc"}}),
              ElementsAre(2, 4, 1, 3, 5));
  EXPECT_THAT(Select({{"sort", "state"}}), ElementsAre(5, 3, 1, 2, 4));
}

// A page sorts only its own rows: they are the full sort's first ones.
TEST(TrialQueryTest, APageSortsTheFirstRowsAsTheFullSortDoes) {
  for (const char* sort : {"value", "param:opt", "param:lr", "state"}) {
    for (const char* order : {"asc", "desc"}) {
      auto query = ParseTrialQuery({{"sort", sort}, {"order", order}}, Spec());
      ASSERT_TRUE(query.ok()) << query.status();
      const std::vector<int64_t> all =
          Numbers(SelectTrials(Trials(), Spec(), *query));
      const std::vector<int64_t> page =
          Numbers(SelectTrials(Trials(), Spec(), *query, 2));
      ASSERT_EQ(page.size(), all.size());
      EXPECT_THAT(std::vector<int64_t>(page.begin(), page.begin() + 2),
                  ElementsAre(all[0], all[1]))
          << sort << " " << order;
    }
  }
}

TEST(TrialQueryTest, FiltersByStateRangeAndCategory) {
  EXPECT_THAT(Select({{"states", "SUCCEEDED,ACTIVE"}}),
              ElementsAre(1, 2, 4, 5));
  EXPECT_THAT(Select({{"where", R"({"params": {"lr": [0.005, 0.2]}})"}}),
              ElementsAre(1, 2, 5));
  EXPECT_THAT(Select({{"where", R"({"params": {"opt": ["sgd"]}})"}}),
              ElementsAre(2, 4));
  EXPECT_THAT(Select({{"where", R"({"value": [0.6, 1]})"}}), ElementsAre(2, 4));
}

TEST(TrialQueryTest, SortsAndFiltersByAnyMetricOfTheFinalMeasurement) {
  EXPECT_THAT(Select({{"sort", "metric:std"}}), ElementsAre(2, 4, 1, 3, 5));
  EXPECT_THAT(Select({{"sort", "metric:std"}, {"order", "desc"}}),
              ElementsAre(1, 4, 2, 3, 5));
  EXPECT_THAT(Select({{"where", R"({"metrics": {"std": [0.2, 0.6]}})"}}),
              ElementsAre(1, 4));
  // A metric no trial reports: nothing matches, and the sort keeps numbers.
  EXPECT_THAT(Select({{"where", R"({"metrics": {"nope": [0, 1]}})"}}),
              ElementsAre());
  EXPECT_THAT(Select({{"sort", "metric:nope"}}), ElementsAre(1, 2, 3, 4, 5));
}

TEST(TrialQueryTest, EachMistakeNamesTheParameterAndTheValue) {
  const StudySpec spec = Spec();
  EXPECT_THAT(ParseTrialQuery({{"limit", "0"}}, spec).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("limit \"0\": expected an integer from 1 to "
                                 "1000")));
  EXPECT_THAT(ParseTrialQuery({{"sort", "param:nope"}}, spec).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("sort \"param:nope\"")));
  EXPECT_THAT(ParseTrialQuery({{"sort", "metric:"}}, spec).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("sort \"metric:\"")));
  EXPECT_THAT(ParseTrialQuery({{"where", R"({"metrics": {"std": [1]}})"}}, spec)
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("std must be [low, high]")));
  EXPECT_THAT(ParseTrialQuery({{"states", "DONE"}}, spec).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown state \"DONE\"")));
  EXPECT_THAT(ParseTrialQuery({{"where", "{"}}, spec).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("where \"{\": not a JSON object")));
  EXPECT_THAT(
      ParseTrialQuery({{"where", R"({"params": {"depth": [1, 2]}})"}}, spec)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("no parameter \"depth\"")));
  EXPECT_THAT(
      ParseTrialQuery({{"where", std::string(20000, ' ')}}, spec).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("longer than 16384 bytes")));
}

TEST(TrialSlotTest, ReadsTheJobsSlotFromTheClient) {
  EXPECT_EQ(TrialSlot(*Make(4, TrialState::kActive, {}, 0.1, "a")), 1);
  Trial asked;
  asked.client_id = "my-client";
  EXPECT_EQ(TrialSlot(asked), std::nullopt);
}

}  // namespace
}  // namespace hptune::dashboard
