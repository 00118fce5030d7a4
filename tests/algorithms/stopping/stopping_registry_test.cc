#include "hptune/algorithms/stopping_registry.h"

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
      const StudySpec&, const std::vector<Trial>&) override {
    return std::vector<StoppingDecision>{};
  }
};

StoppingRuleFactory KeepAllFactory() {
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
  }
  EXPECT_EQ(RuleName(StoppingRule::kMedianAtStep), "median-at-step");
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
