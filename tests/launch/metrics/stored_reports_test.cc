// StoredReports: the one rule that decides which re-read reports are new.
#include "hptune/launch/stored_reports.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Measurement At(int64_t micros, int64_t step, double value) {
  return Measurement{.step = step,
                     .time = FromUnixMicros(micros),
                     .metrics = {{"loss", value}}};
}

Measurement Undated(int64_t step, double value) {
  return Measurement{.step = step, .metrics = {{"loss", value}}};
}

TEST(StoredReportsTest, DatedReportsMatchOnTimeStepAndMetrics) {
  StoredReports stored({At(10, 1, 0.5), At(20, 2, 0.4)});
  EXPECT_THAT(
      stored.TakeUnstored({At(10, 1, 0.5), At(20, 2, 0.4), At(30, 3, 0.3)}),
      ElementsAre(At(30, 3, 0.3)));
}

TEST(StoredReportsTest, ARestartedTrainersEqualReportAtANewTimeIsNew) {
  StoredReports stored({At(10, 1, 0.5)});
  EXPECT_THAT(stored.TakeUnstored({At(99, 1, 0.5)}),
              ElementsAre(At(99, 1, 0.5)));
}

TEST(StoredReportsTest, UndatedLinesMatchOnStepAndMetricsOnce) {
  // Stored when read: the store stamped them.
  StoredReports stored({At(10, 1, 0.5)});
  EXPECT_THAT(stored.TakeUnstored({Undated(1, 0.5), Undated(1, 0.5)}),
              ElementsAre(Undated(1, 0.5)));
}

TEST(StoredReportsTest, EachStoredMeasurementIsUsedUpOnce) {
  StoredReports stored({At(10, 1, 0.5), At(11, 1, 0.5)});
  EXPECT_THAT(stored.TakeUnstored({Undated(1, 0.5), Undated(1, 0.5)}),
              IsEmpty());
  EXPECT_THAT(stored.TakeUnstored({Undated(1, 0.5)}),
              ElementsAre(Undated(1, 0.5)));
}

TEST(StoredReportsTest, OtherMetricsOrStepsAreNew) {
  StoredReports stored({At(10, 1, 0.5)});
  EXPECT_THAT(stored.TakeUnstored({At(10, 2, 0.5), At(10, 1, 0.6)}),
              ElementsAre(At(10, 2, 0.5), At(10, 1, 0.6)));
}

}  // namespace
}  // namespace hptune::launch
