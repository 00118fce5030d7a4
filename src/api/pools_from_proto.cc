// A TrainingInput's scale tier and task pools (pools_from_proto.h).
#include "src/api/pools_from_proto.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/job_validation.h"

namespace hptune::api::proto_internal {
namespace {

// One pool's fields in a TrainingInput, and where it goes in a JobSpec.
struct PoolMessage {
  TaskPool JobSpec::*pool;
  std::string_view type_key;
  std::string_view config_key;
  std::string_view count_key;  // Empty for the master: there is always one.
  std::string_view type;       // Empty: not set.
  const v1::ReplicaConfig* config;
  std::optional<int64_t> count;
};

std::vector<PoolMessage> PoolMessages(const v1::TrainingInput& p) {
  const auto config = [](bool has, const v1::ReplicaConfig& c) {
    return has ? &c : nullptr;
  };
  const auto count = [](bool has, int64_t n) {
    return has ? std::optional<int64_t>(n) : std::nullopt;
  };
  return {
      {&JobSpec::master, "masterType", "masterConfig", "", p.master_type(),
       config(p.has_master_config(), p.master_config()), std::nullopt},
      {&JobSpec::worker, "workerType", "workerConfig", "workerCount",
       p.worker_type(), config(p.has_worker_config(), p.worker_config()),
       count(p.has_worker_count(), p.worker_count())},
      {&JobSpec::parameter_server, "parameterServerType",
       "parameterServerConfig", "parameterServerCount",
       p.parameter_server_type(),
       config(p.has_parameter_server_config(), p.parameter_server_config()),
       count(p.has_parameter_server_count(), p.parameter_server_count())},
      {&JobSpec::evaluator, "evaluatorType", "evaluatorConfig",
       "evaluatorCount", p.evaluator_type(),
       config(p.has_evaluator_config(), p.evaluator_config()),
       count(p.has_evaluator_count(), p.evaluator_count())},
  };
}

// An int64 count in [min, max]; AI Platform's JSON writes it quoted, and
// the reader shows it so.
std::optional<int> ReadCount(int64_t count, const std::string& path,
                             int64_t min, int64_t max, ProtoErrors& errors) {
  const std::string shown = Quote(std::to_string(count));
  if (count < min) {
    errors.Add(path,
               "must be at least " + std::to_string(min) + ", got " + shown);
    return std::nullopt;
  }
  if (count > max) {
    errors.Add(path,
               "must be at most " + std::to_string(max) + ", got " + shown);
    return std::nullopt;
  }
  return static_cast<int>(count);
}

// acceleratorConfig {count, type}: false when it could not be read.
bool ReadAccelerator(const v1::ReplicaConfig& config,
                     const std::string& config_path, ProtoErrors& errors,
                     AcceleratorConfig& accelerator) {
  if (!config.has_accelerator_config()) return true;
  const std::string path = JoinPath(config_path, "acceleratorConfig");
  const v1::AcceleratorConfig& proto = config.accelerator_config();
  std::optional<int> count;
  if (proto.has_count()) {
    count = ReadCount(proto.count(), JoinPath(path, "count"), 1, kMaxIntCount,
                      errors);
  } else {
    errors.AddMissing(JoinPath(path, "count"), "required");
  }
  if (proto.type().empty())
    errors.AddMissing(JoinPath(path, "type"), "required");
  if (!count || proto.type().empty()) return false;
  accelerator = {.count = *count, .type = proto.type()};
  return true;
}

// The variables, unless one has no name.
void ReadEnv(const v1::ReplicaConfig& config, const std::string& config_path,
             ProtoErrors& errors, TaskPool& pool) {
  const std::string path = JoinPath(config_path, "env");
  std::vector<EnvVar> env;
  bool named = true;
  for (int i = 0; i < config.env_size(); ++i) {
    const v1::EnvVar& var = config.env(i);
    if (var.name().empty()) {
      errors.AddMissing(JoinPath(IndexPath(path, i), "name"), "required");
      named = false;
    }
    env.push_back({.name = var.name(), .value = var.value()});
  }
  if (named) pool.env = std::move(env);
}

// The container fields; their rules are ValidateJob's, once the master's
// image has been passed on.
void ReadContainer(const v1::ReplicaConfig& config,
                   const std::string& config_path, ProtoErrors& errors,
                   TaskPool& pool) {
  ContainerSpec& container = pool.container;
  container.image_uri = config.image_uri();
  container.command.assign(config.container_command().begin(),
                           config.container_command().end());
  container.args.assign(config.container_args().begin(),
                        config.container_args().end());
  container.python_module = config.python_module();
  container.package_uris.assign(config.package_uris().begin(),
                                config.package_uris().end());
  ReadEnv(config, config_path, errors, pool);
}

// A pool of a CUSTOM tier, or of a tier not known (`custom` false), whose
// pools are read as CUSTOM's but without its "required" rules.
void ReadCustomPool(const PoolMessage& m, bool custom, const std::string& path,
                    ProtoErrors& errors, JobSpec& job) {
  TaskPool& pool = job.*m.pool;
  const std::string type_path = JoinPath(path, m.type_key);
  const std::string config_path = JoinPath(path, m.config_key);
  pool.count = m.count_key.empty() ? 1 : 0;
  if (m.count) {
    pool.count = ReadCount(*m.count, JoinPath(path, m.count_key), 0,
                           kMaxIntCount, errors)
                     .value_or(0);
  }
  pool.machine_type = std::string(m.type);
  bool accelerator_read = true;
  if (m.config != nullptr) {
    accelerator_read =
        ReadAccelerator(*m.config, config_path, errors, pool.accelerator);
    ReadContainer(*m.config, config_path, errors, pool);
    if (m.type.empty() && pool.count == 0) {
      errors.Add(config_path, "set without " + std::string(m.type_key));
    }
  }
  // A missing type is told where the rule that requires it was set.
  if (custom && m.type.empty()) {
    if (m.count_key.empty()) {
      errors.AddAt(JoinPath(path, "scaleTier"), type_path,
                   "required with scaleTier CUSTOM");
    } else if (pool.count > 0) {
      errors.AddAt(JoinPath(path, m.count_key), type_path,
                   "required when " + std::string(m.count_key) + " is " +
                       std::to_string(pool.count));
    }
  }
  // ValidateJob sees a tier not known as CUSTOM and would ask for the type.
  if (!custom && m.type.empty()) errors.Report(type_path);
  if (!accelerator_read) {
    errors.Report(type_path);
    errors.Report(JoinPath(config_path, "acceleratorConfig"));
  }
}

// A tier other than CUSTOM fixes each pool's machines; a pool the tier has
// may still name its container.
void ReadTierPool(const PoolMessage& m, ScaleTier tier, bool tier_given,
                  const std::string& path, ProtoErrors& errors, JobSpec& job) {
  const std::string refusal =
      "only allowed with scaleTier CUSTOM, got scaleTier " +
      std::string(ToString(tier)) + (tier_given ? "" : " (the default)");
  if (!m.type.empty()) errors.Add(JoinPath(path, m.type_key), refusal);
  if (m.count) errors.Add(JoinPath(path, m.count_key), refusal);
  if (m.config == nullptr) return;
  const std::string config_path = JoinPath(path, m.config_key);
  TaskPool& pool = job.*m.pool;
  if (pool.count == 0) {
    const std::string_view name = m.type_key.substr(
        0, m.type_key.size() - std::string_view("Type").size());
    errors.Add(config_path,
               refusal + ", which has no " + std::string(name) + "s");
    return;
  }
  if (m.config->has_accelerator_config()) {
    errors.Add(JoinPath(config_path, "acceleratorConfig"), refusal);
  }
  ReadContainer(*m.config, config_path, errors, pool);
}

std::optional<ScaleTier> ReadTier(const v1::TrainingInput& proto,
                                  const std::string& path,
                                  ProtoErrors& errors) {
  if (!proto.has_scale_tier()) return ScaleTier::kBasic;
  const int tier = proto.scale_tier();
  if (!v1::TrainingInput::ScaleTier_IsValid(tier)) {
    errors.Add(JoinPath(path, "scaleTier"), UnknownEnum(tier));
    return std::nullopt;
  }
  // The enum's names are the config's.
  return ParseScaleTier(v1::TrainingInput::ScaleTier_Name(proto.scale_tier()));
}

}  // namespace

void ReadTierAndPools(const v1::TrainingInput& proto, const std::string& path,
                      ProtoErrors& errors, JobSpec& job) {
  // A tier not known reads the pools as CUSTOM would, so their errors show
  // too.
  const std::optional<ScaleTier> tier = ReadTier(proto, path, errors);
  job.scale_tier = tier.value_or(ScaleTier::kCustom);
  const bool custom = job.scale_tier == ScaleTier::kCustom;
  // The tier's pools, which a pool's container is read into.
  if (!custom) CompleteJob(job);
  for (const PoolMessage& m : PoolMessages(proto)) {
    if (custom) {
      ReadCustomPool(m, tier.has_value(), path, errors, job);
    } else {
      ReadTierPool(m, *tier, proto.has_scale_tier(), path, errors, job);
    }
  }
  CompleteJob(job);
}

}  // namespace hptune::api::proto_internal
