#include "src/cli/seeding_note.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hptune::cli {
namespace {

// `doubles` DOUBLE parameters: D = doubles features, 2 (D + 1) seeding
// trials (at least 4).
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
  spec.metric_tag = "loss";
  spec.max_trials = max_trials;
  spec.algorithm = algorithm;
  spec.search_space = SearchSpace(std::move(parameters));
  return spec;
}

TEST(SeedingNoteTest, SaysHowManyTrialsTheGpChooses) {
  EXPECT_EQ(SeedingNote(Spec(2, 20)),
            "the first 6 of 20 trials are quasi-random seeding; the GP "
            "chooses the other 14");
  EXPECT_EQ(SeedingNote(Spec(2, 5)),
            "all 5 trials are quasi-random seeding: the GP chooses trials "
            "only after its first 6");
  EXPECT_EQ(SeedingNote(Spec(2, 20, Algorithm::kRandomSearch)), "");
}

TEST(SeedingWarningTest, WarnsWhenTheGpChoosesFewerThanTen) {
  EXPECT_EQ(SeedingWarning(Spec(2, 10)),
            "maxTrials (10) leaves the GP 4 trials after its 6 seeding "
            "trials: give maxTrials 16 or more for it to choose 10");
  EXPECT_EQ(SeedingWarning(Spec(2, 7)),
            "maxTrials (7) leaves the GP 1 trial after its 6 seeding "
            "trials: give maxTrials 16 or more for it to choose 10");
  EXPECT_EQ(SeedingWarning(Spec(2, 16)), "");
  EXPECT_EQ(SeedingWarning(Spec(2, 10, Algorithm::kGridSearch)), "");
  // 2 (D + 1) stops at 20.
  EXPECT_EQ(SeedingWarning(Spec(15, 29)),
            "maxTrials (29) leaves the GP 9 trials after its 20 seeding "
            "trials: give maxTrials 30 or more for it to choose 10");
}

}  // namespace
}  // namespace hptune::cli
