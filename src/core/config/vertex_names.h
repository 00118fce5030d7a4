// The names of a Vertex AI HyperparameterTuningJob's fields and the AI
// Platform `trainingInput` fields they stand for: one table, read
// Vertex -> AI Platform by the reader (vertex.cc) and the other way by the
// writer (vertex_writer.cc), so the two cannot drift apart.
//
// Private to config parsing and writing. Constants only; thread-safe.
#ifndef HPTUNE_SRC_CORE_CONFIG_VERTEX_NAMES_H_
#define HPTUNE_SRC_CORE_CONFIG_VERTEX_NAMES_H_

#include <array>
#include <string_view>

namespace hptune::config_internal {

struct FieldName {
  std::string_view vertex;
  std::string_view ai;
};

// HyperparameterTuningJob's budget -> trainingInput.hyperparameters.
inline constexpr std::array<FieldName, 3> kStudyCounts = {{
    {"maxTrialCount", "maxTrials"},
    {"parallelTrialCount", "maxParallelTrials"},
    {"maxFailedTrialCount", "maxFailedTrials"},
}};

// studySpec's automated stopping specs -> the early-stopping rules of
// those names (hyperparameters.earlyStoppingRule; stopping_registry.h).
struct StoppingSpecName {
  std::string_view vertex;
  std::string_view rule;
};
inline constexpr std::array<StoppingSpecName, 3> kVertexStoppingRules = {{
    {"decayCurveStoppingSpec", "decay-curve"},
    {"medianAutomatedStoppingSpec", "median"},
    {"convexAutomatedStoppingSpec", "convex"},
}};

// A pool's containerSpec or pythonPackageSpec -> its ReplicaConfig.
inline constexpr std::array<FieldName, 5> kContainerFields = {{
    {"command", "containerCommand"},
    {"args", "containerArgs"},
    {"env", "env"},
    {"pythonModule", "pythonModule"},
    {"packageUris", "packageUris"},
}};

// trialJobSpec.scheduling -> trainingInput.scheduling.
inline constexpr std::array<FieldName, 2> kSchedulingFields = {{
    {"timeout", "maxRunningTime"},
    {"maxWaitDuration", "maxWaitTime"},
}};

// A parameter's value spec and the parameter type it stands for.
struct ValueSpecName {
  std::string_view key, type;
  bool range, integer;
};
inline constexpr std::array<ValueSpecName, 4> kValueSpecs = {{
    {"doubleValueSpec", "DOUBLE", true, false},
    {"integerValueSpec", "INTEGER", true, true},
    {"discreteValueSpec", "DISCRETE", false, false},
    {"categoricalValueSpec", "CATEGORICAL", false, false},
}};

// trialJobSpec.workerPoolSpecs[i] is the i-th of these AI Platform pools.
struct PoolNames {
  std::string_view type;
  std::string_view config;
  std::string_view count;  // Empty for the chief.
};
inline constexpr std::array<PoolNames, 4> kWorkerPools = {{
    {"masterType", "masterConfig", ""},
    {"workerType", "workerConfig", "workerCount"},
    {"parameterServerType", "parameterServerConfig", "parameterServerCount"},
    {"evaluatorType", "evaluatorConfig", "evaluatorCount"},
}};

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_VERTEX_NAMES_H_
