#include "src/api/ml_units.h"

#include <chrono>

namespace hptune::api {

int ReplicasPerTrial(const JobSpec& job) {
  int replicas = 0;
  for (TaskType type : kTaskTypes) {
    if (job.Runs(type)) replicas += job.pool(type).count;
  }
  return replicas;
}

double ConsumedMlUnits(const JobSpec& job, const std::vector<Trial>& trials) {
  using Hours = std::chrono::duration<double, std::ratio<3600>>;
  Hours ran{0};
  for (const Trial& trial : trials) {
    if (!trial.start_time || !trial.end_time) continue;
    // A clock stepped back between the two stamps counts nothing.
    if (*trial.end_time > *trial.start_time) {
      ran += *trial.end_time - *trial.start_time;
    }
  }
  return ran.count() * ReplicasPerTrial(job);
}

}  // namespace hptune::api
