// A study on a SQLite file continues exactly where it stopped when the
// process that drove it goes away and another opens the file.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/engine/engine.h"
#include "hptune/store/open_store.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

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
  spec.SetSingleMetric("m");
  spec.max_trials = 100;
  spec.max_parallel_trials = 100;
  spec.algorithm = algorithm;
  spec.seed = 42;
  return spec;
}

// Suggests `count` trials, `batch` at a time, and completes each batch with
// a made-up objective.
std::vector<ParameterAssignment> Step(TuningEngine& engine, int count,
                                      int batch) {
  std::vector<ParameterAssignment> points;
  while (static_cast<int>(points.size()) < count) {
    const int ask = std::min(batch, count - static_cast<int>(points.size()));
    auto response = engine.SuggestTrials("s", ask, "client");
    EXPECT_OK(response);
    if (!response.ok() || response->trials.empty()) break;
    for (const Trial& t : response->trials) {
      points.push_back(t.parameters);
      // lr's term (grid search has none) keeps values apart: a best value
      // several trials share would make some GP suggestions quasi-random.
      const auto lr = t.parameters.find("lr");
      const double m = t.parameters.at("units").AsDouble() +
                       (t.parameters.at("cell").AsString() == "gru" ? 0 : 7) +
                       (lr == t.parameters.end() ? 0 : lr->second.AsDouble());
      EXPECT_OK(engine.CompleteTrial(
          "s", t.number, Measurement{.step = 1, .metrics = {{"m", m}}}));
    }
  }
  return points;
}

std::string Key(const ParameterAssignment& a) {
  std::string key;
  for (const auto& [name, value] : a)
    key += name + "=" + value.ToString() + ";";
  return key;
}

struct ResumeCase {
  Algorithm algorithm;
  int before;  // Trials before the process goes away.
  int after;   // Trials after the file is opened again.
  int batch;   // Trials asked for at once.
  // How the last trial's origin begins: the GP's must come from its model.
  std::string last_origin;
};

// Random, quasi-random and grid search: more trials than the sampler's
// duplicate-avoidance retries (64), so a designer that lost its state would
// start its sequence over and repeat points: the comparison below would then
// fail. The GP: past its seeding, with a refit and model suggestions on
// both sides of the restart, in batches so that some explore.
const ResumeCase kCases[] = {
    {Algorithm::kGridSearch, 70, 5, 70, "grid["},
    {Algorithm::kRandomSearch, 70, 5, 70, "random["},
    {Algorithm::kQuasiRandomSearch, 70, 5, 70, "halton["},
    {Algorithm::kUnspecified, 24, 8, 4, "gp-"},
};

class ResumeTest : public ::testing::TestWithParam<ResumeCase> {};

TEST_P(ResumeTest, AReopenedStudyContinuesTheSameSequence) {
  const ResumeCase& c = GetParam();
  std::string dir = testing::MakeTempDir();
  std::vector<ParameterAssignment> uninterrupted;
  std::string uninterrupted_state;
  {
    auto store = store::OpenSqliteStore(dir + "/a.db", hptune::SystemClock());
    ASSERT_OK(store);
    TuningEngine engine(**store, hptune::SystemClock());
    ASSERT_OK(engine.CreateStudy("s", Spec(c.algorithm)));
    uninterrupted = Step(engine, c.before, c.batch);
    for (auto& p : Step(engine, c.after, c.batch)) uninterrupted.push_back(p);
    uninterrupted_state = *(*store)->GetDesignerState("s");
  }
  std::vector<ParameterAssignment> resumed;
  {
    auto store = store::OpenSqliteStore(dir + "/b.db", hptune::SystemClock());
    ASSERT_OK(store);
    TuningEngine engine(**store, hptune::SystemClock());
    ASSERT_OK(engine.CreateStudy("s", Spec(c.algorithm)));
    resumed = Step(engine, c.before, c.batch);
  }
  {
    auto store = store::OpenSqliteStore(dir + "/b.db", hptune::SystemClock());
    ASSERT_OK(store);
    TuningEngine engine(**store, hptune::SystemClock());
    for (auto& p : Step(engine, c.after, c.batch)) resumed.push_back(p);
    EXPECT_EQ(engine.ListTrials("s")->size(),
              static_cast<size_t>(c.before + c.after));
    EXPECT_TRUE(
        engine.ListTrials("s")->back().origin.starts_with(c.last_origin))
        << engine.ListTrials("s")->back().origin;
    EXPECT_FALSE(uninterrupted_state.empty());
    EXPECT_EQ(*(*store)->GetDesignerState("s"), uninterrupted_state);
  }
  ASSERT_EQ(resumed.size(), static_cast<size_t>(c.before + c.after));
  EXPECT_EQ(resumed, uninterrupted);
  std::set<std::string> distinct;
  for (const auto& p : resumed) distinct.insert(Key(p));
  EXPECT_EQ(distinct.size(), resumed.size()) << "a point was repeated";
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Designers, ResumeTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) {
                           return std::string(ToString(info.param.algorithm));
                         });

// An embedder's designer: random search under a name of its own.
EngineOptions WithMine() {
  EngineOptions options;
  EXPECT_OK(options.designers.Register(
      "MINE",
      [](const Problem& problem,
         const algorithms::DesignerOptions& designer_options, uint64_t seed) {
        return algorithms::DesignerRegistry::WithBuiltins().Create(
            problem, DesignerSettings{.algorithm = Algorithm::kRandomSearch},
            designer_options.trial_budget, seed);
      }));
  return options;
}

TEST(ResumeTest, AUserDesignersStudyReopensUnderItsName) {
  std::string dir = testing::MakeTempDir();
  StudySpec spec = Spec(Algorithm::kUnspecified);
  spec.custom_algorithm = "MINE";
  std::vector<ParameterAssignment> before;
  {
    auto store = store::OpenSqliteStore(dir + "/a.db", hptune::SystemClock());
    ASSERT_OK(store);
    TuningEngine engine(**store, WithMine(), hptune::SystemClock());
    ASSERT_OK(engine.CreateStudy("s", spec));
    before = Step(engine, 3, 3);
  }
  {
    auto store = store::OpenSqliteStore(dir + "/a.db", hptune::SystemClock());
    ASSERT_OK(store);
    TuningEngine engine(**store, WithMine(), hptune::SystemClock());
    EXPECT_EQ(engine.GetStudy("s")->spec.custom_algorithm, "MINE");
    EXPECT_OK(engine.OpenOrCreateStudy("s", spec));
    auto response = engine.SuggestTrials("s", 1, "client");
    ASSERT_OK(response);
    EXPECT_EQ(response->trials.at(0).origin, "random[9]");  // 3 draws each.
  }
  {
    // A process without the designer cannot go on with the study.
    auto store = store::OpenSqliteStore(dir + "/a.db", hptune::SystemClock());
    ASSERT_OK(store);
    TuningEngine engine(**store, hptune::SystemClock());
    auto response = engine.SuggestTrials("s", 1, "other");
    EXPECT_TRUE(absl::IsInvalidArgument(response.status()));
    EXPECT_THAT(std::string(response.status().message()),
                ::testing::HasSubstr("algorithm \"MINE\" is not registered"));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hptune::engine
