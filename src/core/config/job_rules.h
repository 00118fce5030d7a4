// ValidateJob's rules in two parts, and the task pools of a scale tier.
//
// Private to config parsing: the text reader (training_input.cc) judges
// presence itself, from the text, and takes only the value rules here;
// ValidateJob (job_rules.cc) applies both parts to a typed job, where an
// empty field is an absent one. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_CORE_CONFIG_JOB_RULES_H_
#define HPTUNE_SRC_CORE_CONFIG_JOB_RULES_H_

#include <string_view>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune::config_internal {

// The config keys of each task pool.
struct PoolKeys {
  TaskType task;
  std::string_view type;
  std::string_view config;
  std::string_view count;  // Empty for the master: there is always one.
};
inline constexpr PoolKeys kPools[] = {
    {TaskType::kMaster, "masterType", "masterConfig", ""},
    {TaskType::kWorker, "workerType", "workerConfig", "workerCount"},
    {TaskType::kParameterServer, "parameterServerType", "parameterServerConfig",
     "parameterServerCount"},
    {TaskType::kEvaluator, "evaluatorType", "evaluatorConfig",
     "evaluatorCount"},
};

TaskPool& PoolOf(TaskType task, JobSpec& job);

// Sets each pool's replicas and machines to those `tier` stands for, with
// the Compute Engine machine types AI Platform documents for it; containers
// and environments are kept. CUSTOM leaves one master of no type.
void ApplyScaleTier(ScaleTier tier, JobSpec& job);

// Rules on values that are there, under "trainingInput": machine types and
// accelerators, containers, the trainer, displayName, baseOutputDirectory.
std::vector<FieldError> ValidateTrainingInputValues(
    const JobSpec& job, const MachineCatalogue& catalogue);

// The rules the text reader judges from which fields a file has, on a typed
// job: a CUSTOM pool's type, a pool's config without its type, a config for
// a pool the tier has not.
std::vector<FieldError> ValidateTrainingInputPresence(const JobSpec& job);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_JOB_RULES_H_
