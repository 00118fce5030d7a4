// consumedMLUnits: replica-hours of the trials that ended.
#include "src/api/ml_units.h"

#include <gtest/gtest.h>

#include <chrono>

namespace hptune::api {
namespace {

using std::chrono::minutes;

Trial Ran(Timestamp start, std::optional<Timestamp> end) {
  Trial trial;
  trial.start_time = start;
  trial.end_time = end;
  return trial;
}

TEST(MlUnitsTest, ReplicaHoursOfEndedTrials) {
  JobSpec job;
  job.worker.count = 2;
  job.parameter_server.count = 1;
  ASSERT_EQ(ReplicasPerTrial(job), 4);
  const Timestamp t0{std::chrono::hours(1000)};
  const std::vector<Trial> trials = {
      Ran(t0, t0 + minutes(30)), Ran(t0, t0 + minutes(15)),
      Ran(t0, std::nullopt),  // Still running: counts once it ends.
      Trial{}};               // Never started.
  EXPECT_DOUBLE_EQ(ConsumedMlUnits(job, trials), 0.75 * 4);
}

TEST(MlUnitsTest, AMasterOnlyJobCountsHoursAndNoTrialsCountNothing) {
  const JobSpec job;
  const Timestamp t0{std::chrono::hours(1000)};
  EXPECT_DOUBLE_EQ(ConsumedMlUnits(job, {Ran(t0, t0 + minutes(90))}), 1.5);
  EXPECT_DOUBLE_EQ(ConsumedMlUnits(job, {}), 0.0);
}

}  // namespace
}  // namespace hptune::api
