#include "hptune/algorithms/stopping_registry.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class KeepAll : public StoppingPolicy {
 public:
  absl::StatusOr<std::vector<StoppingDecision>> Decide(
      const Problem&, const std::vector<Trial>&) override {
    return std::vector<StoppingDecision>{};
  }
};

PlainStoppingRuleFactory KeepAllFactory() {
  return []() -> absl::StatusOr<std::unique_ptr<StoppingPolicy>> {
    return std::make_unique<KeepAll>();
  };
}

TEST(StoppingRuleRegistryTest, TheBuiltinsAreKnownByTheirNames) {
  StoppingRuleRegistry registry = StoppingRuleRegistry::WithBuiltins();
  EXPECT_THAT(registry.Names(),
              ElementsAre("asha", "asha-resume", "convex", "decay-curve",
                          "envelope", "median", "median-at-step"));
  for (const std::string& name : registry.Names()) {
    EXPECT_OK(registry.Create(name)) << name;
    EXPECT_FALSE(registry.Description(name).empty()) << name;
  }
}

// Each rule's factory reads its own settings: the convex rule its three,
// named as Vertex names them; a rule without settings refuses any.
TEST(StoppingRuleRegistryTest, EachFactoryDecodesAndChecksItsOwnSettings) {
  StoppingRuleRegistry registry = StoppingRuleRegistry::WithBuiltins();
  StoppingSettings convex{.rule = "convex"};
  convex.Set("maxStepCount", int64_t{900});
  convex.Set("minMeasurementCount", int64_t{3});
  EXPECT_OK(registry.CheckSettings("convex", convex));
  EXPECT_OK(registry.Create("convex", convex));
  convex.Set("minMeasurementCount", int64_t{1});
  EXPECT_THAT(registry.CheckSettings("convex", convex),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "minMeasurementCount: must be 2 to 1000, got 1"));
  StoppingSettings misspelt;
  misspelt.Set("maxSteps", int64_t{9});
  EXPECT_THAT(registry.CheckSettings("convex", misspelt),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("maxSteps: not a setting of this rule")));
  EXPECT_THAT(registry.CheckSettings("asha", misspelt),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "maxSteps: not a setting of this rule; its settings: "
                       "none"));
  StoppingSettings text;
  text.Set("maxStepCount", std::string("many"));
  EXPECT_THAT(registry.CheckSettings("convex", text),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "maxStepCount: must be an integer, got \"many\""));
  ASSERT_OK(registry.Register("keep-all", KeepAllFactory()));
  EXPECT_THAT(registry.Create("keep-all", misspelt),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"keep-all\": maxSteps: not a setting")));
  EXPECT_THAT(registry.CheckSettings("nope", {}),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

TEST(StoppingRuleRegistryTest, AUserRuleIsCreatedByItsName) {
  StoppingRuleRegistry registry = StoppingRuleRegistry::WithBuiltins();
  ASSERT_OK(registry.Register("keep-all", KeepAllFactory()));
  auto policy = registry.Create("keep-all");
  ASSERT_OK(policy);
  EXPECT_NE(dynamic_cast<KeepAll*>(policy->get()), nullptr);
}

TEST(StoppingRuleRegistryTest, BadRegistrationsAreRefusedWithTheName) {
  StoppingRuleRegistry registry = StoppingRuleRegistry::WithBuiltins();
  EXPECT_THAT(registry.Register("median", KeepAllFactory()),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("already registered as \"median\"")));
  EXPECT_THAT(registry.Register("", KeepAllFactory()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a name of 1 to 100 characters")));
  EXPECT_THAT(registry.Register(std::string(101, 'x'), KeepAllFactory()),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(registry.Register("empty", nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"empty\": the factory is empty")));
  EXPECT_THAT(registry.RegisterBuiltins(),
              StatusIs(absl::StatusCode::kAlreadyExists, ::testing::_));
}

TEST(StoppingRuleRegistryTest, UnknownNamesAndFailingFactoriesAreErrors) {
  StoppingRuleRegistry registry;
  EXPECT_THAT(registry.Create("median"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("registered: none")));
  ASSERT_OK(registry.Register(
      "broken", []() -> absl::StatusOr<std::unique_ptr<StoppingPolicy>> {
        return absl::InternalError("no model");
      }));
  EXPECT_THAT(registry.Create("broken"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("stopping rule \"broken\": no model")));
}

}  // namespace
}  // namespace hptune::algorithms
