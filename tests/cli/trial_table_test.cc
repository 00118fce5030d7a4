#include "src/cli/trial_table.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hptune::cli {
namespace {

using ::testing::ElementsAre;

StudySpec SpecWithParameterNamed(const std::string& name) {
  StudySpec spec;
  spec.SetSingleMetric("loss");
  spec.search_space = SearchSpace({{.name = name,
                                    .type = ParameterType::kInteger,
                                    .min_value = 1,
                                    .max_value = 9}});
  return spec;
}

Trial Finished() {
  Trial t;
  t.number = 4;
  t.state = TrialState::kSucceeded;
  t.parameters = {{"state", ParameterValue::Integer(7)}};
  t.final_measurement =
      Measurement{.step = 12, .time = {}, .metrics = {{"loss", 0.25}}};
  t.origin = "grid[3]";
  return t;
}

TEST(TrialsTableTest, AParameterNamedLikeAColumnDoesNotHideIt) {
  Table table = TrialsTable(SpecWithParameterNamed("state"), {Finished()}, {});
  EXPECT_THAT(
      table.header,
      ElementsAre("trialId", "state", "hyperparameters.state", "objective",
                  "step", "stoppedEarly", "origin", "reason"));
  EXPECT_THAT(table.rows[0], ElementsAre("4", "SUCCEEDED", "7", "0.25", "12",
                                         "false", "grid[3]", ""));
}

// optimizer -> {momentum | layers -> width}: one trial per branch.
StudySpec ConditionalSpec() {
  StudySpec spec;
  spec.SetSingleMetric("loss");
  spec.search_space = SearchSpace({
      {.name = "optimizer",
       .type = ParameterType::kCategorical,
       .categorical_values = {"sgd", "adam"}},
      {.name = "momentum",
       .type = ParameterType::kDouble,
       .min_value = 0,
       .max_value = 1,
       .condition = ParentCondition{.parent = "optimizer",
                                    .categorical_values = {"sgd"}}},
      {.name = "layers",
       .type = ParameterType::kInteger,
       .min_value = 1,
       .max_value = 3,
       .condition = ParentCondition{.parent = "optimizer",
                                    .categorical_values = {"adam"}}},
      {.name = "width",
       .type = ParameterType::kInteger,
       .min_value = 8,
       .max_value = 64,
       .condition = ParentCondition{.parent = "layers", .int_values = {2, 3}}},
  });
  return spec;
}

std::vector<Trial> ConditionalTrials() {
  Trial sgd = Finished();
  sgd.number = 1;
  sgd.parameters = {{"optimizer", ParameterValue::Categorical("sgd")},
                    {"momentum", ParameterValue::Double(0.5)}};
  Trial adam = Finished();
  adam.number = 2;
  adam.parameters = {{"optimizer", ParameterValue::Categorical("adam")},
                     {"layers", ParameterValue::Integer(2)},
                     {"width", ParameterValue::Integer(16)}};
  return {sgd, adam};
}

TEST(TrialsTableTest, InactiveConditionalParametersAreEmptyCells) {
  Table table = TrialsTable(ConditionalSpec(), ConditionalTrials(), {});
  EXPECT_THAT(table.header,
              ElementsAre("trialId", "state", "optimizer", "momentum", "layers",
                          "width", "objective", "step", "stoppedEarly",
                          "origin", "reason"));
  EXPECT_THAT(table.rows[0], ElementsAre("1", "SUCCEEDED", "sgd", "0.5", "", "",
                                         "0.25", "12", "false", "grid[3]", ""));
  EXPECT_THAT(table.rows[1],
              ElementsAre("2", "SUCCEEDED", "adam", "", "2", "16", "0.25", "12",
                          "false", "grid[3]", ""));
  std::ostringstream csv;
  PrintTrials(ConditionalSpec(), ConditionalTrials(), {}, OutputFormat::kCsv,
              csv);
  EXPECT_THAT(csv.str(),
              ::testing::HasSubstr("\r\n1,SUCCEEDED,sgd,0.5,,,0.25,12,"));
}

TEST(TrialsJsonTest, InactiveConditionalParametersAreAbsent) {
  auto json = nlohmann::json::parse(
      TrialsJson(ConditionalSpec(), ConditionalTrials(), {}));
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0]["hyperparameters"],
            nlohmann::json({{"optimizer", "sgd"}, {"momentum", "0.5"}}));
  EXPECT_EQ(json[1]["hyperparameters"],
            nlohmann::json(
                {{"optimizer", "adam"}, {"layers", "2"}, {"width", "16"}}));
}

TEST(ForReadingTest, DecimalsGetSixSignificantDigitsOthersStay) {
  EXPECT_EQ(ForReading("0.30000000000000004"), "0.3");
  EXPECT_EQ(ForReading("0.0123456789"), "0.0123457");
  EXPECT_EQ(ForReading("1.0000000000000001e-05"), "1e-05");
  EXPECT_EQ(ForReading("0.5"), "0.5");
  EXPECT_EQ(ForReading("123456789"), "123456789");  // Whole: exact.
  EXPECT_EQ(ForReading("LSTM"), "LSTM");
  EXPECT_EQ(ForReading("1.2.3"), "1.2.3");
  EXPECT_EQ(ForReading("2026-11-25T06:00:00Z"), "2026-11-25T06:00:00Z");
}

TEST(PrintTableTest, OnlyTheTableRoundsCsvAndJsonKeepEveryDigit) {
  const Table table{.header = {"trialId", "lr"},
                    .rows = {{"12", "0.011100047308940167"}}};
  std::ostringstream text, csv, json;
  PrintTable(table, OutputFormat::kTable, text);
  PrintTable(table, OutputFormat::kCsv, csv);
  PrintTable(table, OutputFormat::kJson, json);
  EXPECT_EQ(text.str(), "trialId  lr\n12       0.0111\n");
  EXPECT_EQ(csv.str(), "trialId,lr\r\n12,0.011100047308940167\r\n");
  EXPECT_NE(json.str().find("0.011100047308940167"), std::string::npos);
}

TEST(WithoutEmptyColumnsTest, DropsOnlyOptionalColumnsThatSayNothing) {
  const Table table{
      .header = {"trialId", "stoppedEarly", "reason", "origin"},
      .rows = {{"1", "false", "", ""}, {"2", "false", "oom", ""}}};
  const Table shown = WithoutEmptyColumns(table, {"stoppedEarly", "reason"});
  EXPECT_THAT(shown.header, ElementsAre("trialId", "reason", "origin"));
  EXPECT_THAT(shown.rows[1], ElementsAre("2", "oom", ""));
}

TEST(TrialsJsonTest, FollowsAiPlatformsTrialShape) {
  Trial t = Finished();
  t.measurements = {
      Measurement{.step = 6, .time = {}, .metrics = {{"loss", 0.5}}}};
  auto json = nlohmann::json::parse(
      TrialsJson(SpecWithParameterNamed("state"), {t}, {}));
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0]["trialId"], "4");
  EXPECT_EQ(json[0]["state"], "SUCCEEDED");
  EXPECT_EQ(json[0]["hyperparameters"]["state"], "7");
  EXPECT_EQ(json[0]["finalMetric"]["trainingStep"], "12");
  EXPECT_EQ(json[0]["finalMetric"]["objectiveValue"], 0.25);
  EXPECT_EQ(json[0]["isTrialStoppedEarly"], false);
  EXPECT_EQ(json[0]["measurements"][0]["step"], "6");
  EXPECT_EQ(json[0]["measurements"][0]["metrics"]["loss"], 0.5);
}

TEST(TrialsJsonTest, ATrialWithoutAResultHasNoFinalMetric) {
  Trial t = Finished();
  t.final_measurement.reset();
  t.reason = "the trial reported no value of metric \"loss\"";
  auto json = nlohmann::json::parse(
      TrialsJson(SpecWithParameterNamed("state"), {t}, {}));
  EXPECT_FALSE(json[0].contains("finalMetric"));
  EXPECT_EQ(json[0]["reason"], t.reason);
}

}  // namespace
}  // namespace hptune::cli
