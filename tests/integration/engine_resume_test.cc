// A study on a SQLite file continues exactly where it stopped when the
// process that drove it goes away and another opens the file.
#include <filesystem>
#include <set>

#include "gtest/gtest.h"
#include "hptune/engine/engine.h"
#include "hptune/store/sqlite_store.h"
#include "tests/testing/run_process.h"

namespace hptune::engine {
namespace {

StudySpec Spec(Algorithm algorithm) {
  StudySpec spec;
  spec.search_space = SearchSpace({{.name = "lr",
                                    .type = ParameterType::kDouble,
                                    .min_value = 1e-4,
                                    .max_value = 1,
                                    .scale = ScaleType::kLog},
                                   {.name = "units",
                                    .type = ParameterType::kInteger,
                                    .min_value = 1,
                                    .max_value = 50},
                                   {.name = "cell",
                                    .type = ParameterType::kCategorical,
                                    .categorical_values = {"gru", "lstm"}}});
  if (algorithm == Algorithm::kGridSearch) {
    spec.search_space = SearchSpace(
        {spec.search_space.parameters()[1], spec.search_space.parameters()[2]});
  }
  spec.metric_tag = "m";
  spec.max_trials = 100;
  spec.max_parallel_trials = 100;
  spec.algorithm = algorithm;
  spec.seed = 42;
  return spec;
}

// Suggests `count` trials and completes them with a made-up objective.
std::vector<ParameterAssignment> Step(TuningEngine& engine, int count) {
  auto response = engine.SuggestTrials("s", count, "client");
  EXPECT_TRUE(response.ok()) << response.status();
  std::vector<ParameterAssignment> points;
  for (const Trial& t : response->trials) {
    points.push_back(t.parameters);
    Measurement m{.step = 1, .metrics = {{"m", static_cast<double>(t.number)}}};
    EXPECT_TRUE(engine.CompleteTrial("s", t.number, m).ok());
  }
  return points;
}

std::string Key(const ParameterAssignment& a) {
  std::string key;
  for (const auto& [name, value] : a)
    key += name + "=" + value.ToString() + ";";
  return key;
}

// More trials than a designer's duplicate-avoidance retries (64), so a
// designer that lost its state would start its sequence over and repeat
// points: the comparison below would then fail.
constexpr int kBefore = 70;
constexpr int kAfter = 5;

class ResumeTest : public ::testing::TestWithParam<Algorithm> {};

TEST_P(ResumeTest, AReopenedStudyContinuesTheSameSequence) {
  std::string dir = testing::MakeTempDir();
  std::vector<ParameterAssignment> uninterrupted;
  std::string uninterrupted_state;
  {
    auto store = store::SqliteStore::Open(dir + "/a.db");
    ASSERT_TRUE(store.ok()) << store.status();
    TuningEngine engine(**store);
    ASSERT_TRUE(engine.CreateStudy("s", Spec(GetParam())).ok());
    uninterrupted = Step(engine, kBefore);
    for (auto& p : Step(engine, kAfter)) uninterrupted.push_back(p);
    uninterrupted_state = *(*store)->GetDesignerState("s");
  }
  std::vector<ParameterAssignment> resumed;
  {
    auto store = store::SqliteStore::Open(dir + "/b.db");
    ASSERT_TRUE(store.ok());
    TuningEngine engine(**store);
    ASSERT_TRUE(engine.CreateStudy("s", Spec(GetParam())).ok());
    resumed = Step(engine, kBefore);
  }
  {
    auto store = store::SqliteStore::Open(dir + "/b.db");
    ASSERT_TRUE(store.ok());
    TuningEngine engine(**store);
    for (auto& p : Step(engine, kAfter)) resumed.push_back(p);
    EXPECT_EQ(engine.ListTrials("s")->size(), size_t{kBefore + kAfter});
    EXPECT_FALSE(uninterrupted_state.empty());
    EXPECT_EQ(*(*store)->GetDesignerState("s"), uninterrupted_state);
  }
  ASSERT_EQ(resumed.size(), size_t{kBefore + kAfter});
  EXPECT_EQ(resumed, uninterrupted);
  std::set<std::string> distinct;
  for (const auto& p : resumed) distinct.insert(Key(p));
  EXPECT_EQ(distinct.size(), resumed.size()) << "a point was repeated";
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Designers, ResumeTest,
                         ::testing::Values(Algorithm::kGridSearch,
                                           Algorithm::kRandomSearch,
                                           Algorithm::kQuasiRandomSearch),
                         [](const auto& info) {
                           return std::string(ToString(info.param));
                         });

}  // namespace
}  // namespace hptune::engine
