#include "src/cli/seeding_note.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hptune::cli {
namespace {

// `doubles` DOUBLE parameters: D = doubles features, min(2 (D + 1),
// max(4, maxTrials / 4, min(10, maxTrials / 3))) seeding trials.
StudySpec Spec(int doubles, int max_trials,
               Algorithm algorithm = Algorithm::kUnspecified) {
  std::vector<ParameterSpec> parameters;
  for (int i = 0; i < doubles; ++i) {
    parameters.push_back({.name = "x" + std::to_string(i),
                          .type = ParameterType::kDouble,
                          .min_value = 0,
                          .max_value = 1});
  }
  StudySpec spec;
  spec.SetSingleMetric("loss");
  spec.max_trials = max_trials;
  spec.algorithm = algorithm;
  spec.search_space = SearchSpace(std::move(parameters));
  return spec;
}

TEST(SeedingNoteTest, SaysHowManyTrialsTheGpChooses) {
  EXPECT_EQ(SeedingNote(Spec(2, 40)),
            "the first 6 of 40 trials are quasi-random seeding; the GP "
            "chooses the other 34");
  // A third of a small budget.
  EXPECT_EQ(SeedingNote(Spec(2, 15)),
            "the first 5 of 15 trials are quasi-random seeding; the GP "
            "chooses the other 10");
  EXPECT_EQ(SeedingNote(Spec(2, 3)),
            "all 3 trials are quasi-random seeding: the GP chooses trials "
            "only after its first 4");
  EXPECT_EQ(SeedingNote(Spec(2, 20, Algorithm::kRandomSearch)), "");
}

TEST(SeedingWarningTest, WarnsWhenTheGpChoosesFewerThanTen) {
  EXPECT_EQ(SeedingWarning(Spec(2, 10)),
            "maxTrials (10) leaves the GP 6 trials after its 4 seeding "
            "trials: give maxTrials 14 or more for it to choose 10");
  EXPECT_EQ(SeedingWarning(Spec(2, 5)),
            "maxTrials (5) leaves the GP 1 trial after its 4 seeding "
            "trials: give maxTrials 14 or more for it to choose 10");
  EXPECT_EQ(SeedingWarning(Spec(15, 13)),
            "maxTrials (13) leaves the GP 9 trials after its 4 seeding "
            "trials: give maxTrials 14 or more for it to choose 10");
  EXPECT_EQ(SeedingWarning(Spec(2, 14)), "");
  // 15 features would seed 20 trials; 29 trials seed 9.
  EXPECT_EQ(SeedingWarning(Spec(15, 29)), "");
  EXPECT_EQ(SeedingWarning(Spec(2, 10, Algorithm::kGridSearch)), "");
}

}  // namespace
}  // namespace hptune::cli
