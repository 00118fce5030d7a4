#include "hptune/launch/replica_env.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hptune/core/config.h"
#include "hptune/core/machine_types.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "nlohmann/json.hpp"
#include "src/launch/trainer_packages.h"
#include "src/launch/variable_references.h"

namespace hptune::launch {
namespace {

using Json = nlohmann::ordered_json;

// The GPUs of one replica of `pool`: its acceleratorConfig, or the GPUs its
// legacy machine type comes with (standard_gpu, complex_model_m_p100, ...).
AcceleratorConfig GpusOf(const TaskPool& pool) {
  if (pool.accelerator.count > 0) return pool.accelerator;
  const MachineType* machine =
      MachineCatalogue::Builtin().Find(pool.machine_type);
  if (machine != nullptr && machine->included_gpus.count > 0) {
    return machine->included_gpus;
  }
  return {};
}

std::string Describe(const ReplicaRequest& request) {
  return absl::StrCat(std::string(ToString(request.type)), " ", request.index);
}

std::string Address(const ReplicaPlacement& placement) {
  // An IPv6 literal needs brackets before its port.
  if (placement.host.find(':') != std::string::npos) {
    return absl::StrCat("[", placement.host, "]:", placement.port);
  }
  return absl::StrCat(placement.host, ":", placement.port);
}

bool IsUrl(const std::filesystem::path& path) {
  return path.string().find("://") != std::string::npos;
}

// Replicas run in their trial's directory: every path they are given is
// absolute, a relative one taken from the context's working directory. A
// URL (gs://...) stays as it is.
std::filesystem::path ForReplicas(const TrialContext& context,
                                  const std::filesystem::path& path) {
  if (path.empty() || IsUrl(path) || path.is_absolute()) return path;
  return (context.working_dir / path).lexically_normal();
}

// The trainer's command: job.command, or `python3 -m module`. A package
// path's parent directory goes on PYTHONPATH (gcloud's --package-path names
// the package directory itself, so its parent is what makes it importable),
// with a command too. The Python of a module job, or of a command that runs
// `python3` or `python`, is the job's python_interpreter when it has one
// (TrainerProgram).
absl::Status TrainerCommand(const TrialContext& context,
                            std::vector<std::string>* argv,
                            std::map<std::string, std::string>* env) {
  const JobSpec& job = *context.job;
  if (!job.command.empty()) {
    *argv = job.command;
    argv->front() = TrainerProgram(job);
  } else if (!job.package_uris.empty()) {
    *argv = PackageTrainerArgv(job, TrainerProgram(job));
  } else if (!job.module_name.empty()) {
    *argv = {TrainerProgram(job), "-m", job.module_name};
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("job \"", job.job_id,
                     "\": no trainer to run: set a command or a module name "
                     "(with its package path)"));
  }
  if (job.package_path.empty()) return absl::OkStatus();
  std::filesystem::path package =
      ForReplicas(context, job.package_path).lexically_normal();
  if (!package.has_filename()) package = package.parent_path();
  std::string pythonpath = package.parent_path().string();
  std::string base;
  if (context.base_pythonpath.has_value()) {
    base = *context.base_pythonpath;
  } else if (const char* inherited = std::getenv("PYTHONPATH")) {
    base = inherited;
  }
  if (!base.empty()) absl::StrAppend(&pythonpath, ":", base);
  (*env)["PYTHONPATH"] = pythonpath;
  return absl::OkStatus();
}

// --<name>=<value> per active parameter, in search-space order: a
// conditional parameter whose parent's value does not activate it is not
// passed.
absl::StatusOr<std::vector<std::string>> ParameterFlags(
    const TrialContext& context) {
  std::vector<std::string> flags;
  const JobSpec& job = *context.job;
  if (!job.study.has_value()) {
    for (const auto& [name, value] : context.parameters) {
      flags.push_back(absl::StrCat("--", name, "=", value.ToString()));
    }
    return flags;
  }
  const SearchSpace& space = job.study->search_space;
  const std::vector<bool> active = space.ActiveMask(context.parameters);
  for (size_t i = 0; i < space.parameters().size(); ++i) {
    const ParameterSpec& parameter = space.parameters()[i];
    auto it = context.parameters.find(parameter.name);
    if (!active[i]) {
      if (it == context.parameters.end()) continue;
      const std::string& parent = parameter.condition->parent;
      auto parent_value = context.parameters.find(parent);
      return absl::InvalidArgumentError(
          absl::StrCat("trial ", context.trial, ": parameter \"",
                       parameter.name, "\" is inactive (", parent, "=",
                       parent_value == context.parameters.end()
                           ? std::string("absent")
                           : parent_value->second.ToString(),
                       "), got ", it->second.ToString()));
    }
    if (it == context.parameters.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("trial ", context.trial, ": parameter \"",
                       parameter.name, "\" has no value"));
    }
    flags.push_back(
        absl::StrCat("--", parameter.name, "=", it->second.ToString()));
  }
  for (const auto& [name, value] : context.parameters) {
    if (space.Find(name) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "trial ", context.trial, ": parameter \"", name,
          "\" is not in the search space, got ", value.ToString()));
    }
  }
  return flags;
}

absl::StatusOr<Json> TrainingInput(const TrialContext& context) {
  std::string text = context.training_input_json.empty()
                         ? TrainingInputToJson(*context.job)
                         : context.training_input_json;
  Json job = Json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (!job.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job \"", context.job->job_id,
        "\": trainingInput is not a JSON object: ", text.substr(0, 80)));
  }
  return job;
}

absl::Status CheckPlacement(const std::vector<ReplicaRequest>& requests,
                            const std::vector<ReplicaPlacement>& placement) {
  if (requests.size() != placement.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        requests.size(), " replicas but ", placement.size(), " placements"));
  }
  if (requests.empty() || requests[0].type != TaskType::kMaster ||
      requests[0].index != 0) {
    return absl::InvalidArgumentError("the first replica must be master 0");
  }
  for (size_t i = 1; i < requests.size(); ++i) {
    if (requests[i].type == TaskType::kMaster) {
      return absl::InvalidArgumentError(
          absl::StrCat("a trial has one master, got ", Describe(requests[i])));
    }
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

// Where trial `trial` (its own hptune directory `trial_dir`) writes its
// model/, checkpoints/ and logs/.
std::filesystem::path OutputBaseOf(const TrialContext& context, int64_t trial,
                                   const std::filesystem::path& trial_dir) {
  const std::string number = std::to_string(trial);
  const std::string& vertex_base = context.job->base_output_directory;
  if (!vertex_base.empty()) {
    return ForReplicas(context, std::filesystem::path(vertex_base) / number);
  }
  return ForReplicas(
      context, context.job_dir.empty() ? trial_dir : context.job_dir / number);
}

std::filesystem::path TrialOutputBase(const TrialContext& context) {
  return OutputBaseOf(context, context.trial, context.trial_dir);
}

// A continuation's checkpoints are those of the trial it resumes.
std::filesystem::path CheckpointBase(const TrialContext& context) {
  if (context.checkpoint_trial == 0) return TrialOutputBase(context);
  return OutputBaseOf(context, context.checkpoint_trial,
                      context.checkpoint_trial_dir);
}

}  // namespace

AipDirs TrialOutputDirs(const TrialContext& context) {
  const std::filesystem::path base = TrialOutputBase(context);
  auto under = [](const std::filesystem::path& dir, const char* leaf) {
    const std::string prefix = dir.string();
    return absl::StrCat(prefix, prefix.ends_with('/') ? "" : "/", leaf, "/");
  };
  return {.model = under(base, "model"),
          .checkpoint = under(CheckpointBase(context), "checkpoints"),
          .tensorboard = under(base, "logs"),
          .local = !IsUrl(base)};
}

std::vector<ReplicaRequest> ReplicaRequests(const JobSpec& job) {
  std::vector<ReplicaRequest> requests;
  for (TaskType type : kTaskTypes) {
    const TaskPool& pool = job.pool(type);
    AcceleratorConfig gpus = GpusOf(pool);
    for (int i = 0; i < pool.count; ++i) {
      requests.push_back({.type = type,
                          .index = i,
                          .gpu_count = gpus.count,
                          .gpu_type = gpus.count > 0 ? gpus.type : "",
                          .config_path = job.PoolConfigPath(type)});
    }
  }
  return requests;
}

std::string DescribeReplica(const ReplicaRequest& request) {
  std::string text =
      absl::StrCat(std::string(ToString(request.type)), " ", request.index);
  if (!request.config_path.empty()) {
    absl::StrAppend(&text, " (", request.config_path, ")");
  }
  return text;
}

std::string_view TfConfigTaskType(TaskType type, bool use_chief) {
  if (type == TaskType::kMaster && use_chief) return "chief";
  return ToString(type);
}

std::string ReplicaName(TaskType type, int index, bool use_chief) {
  return absl::StrCat(std::string(TfConfigTaskType(type, use_chief)), "-",
                      index);
}

std::filesystem::path ReplicaLogPath(const std::filesystem::path& trial_dir,
                                     TaskType type, int index, bool use_chief) {
  return ReplicaLogIn(trial_dir, ReplicaName(type, index, use_chief));
}

std::filesystem::path ReplicaMetricsPath(const std::filesystem::path& trial_dir,
                                         TaskType type, int index,
                                         bool use_chief) {
  return ReplicaMetricsIn(trial_dir, ReplicaName(type, index, use_chief));
}

namespace {

// The cluster in TF_CONFIG's order: master (or chief), workers, parameter
// servers; evaluators are never part of it.
Json ClusterJson(const std::vector<ReplicaRequest>& requests,
                 const std::vector<ReplicaPlacement>& placement, bool chief) {
  Json cluster = Json::object();
  for (TaskType type : kTaskTypes) {
    if (type == TaskType::kEvaluator) continue;
    Json addresses = Json::array();
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].type == type) addresses.push_back(Address(placement[i]));
    }
    if (!addresses.empty()) {
      cluster[std::string(TfConfigTaskType(type, chief))] = addresses;
    }
  }
  return cluster;
}

// Vertex AI's worker pool names: workerPoolSpecs[i] is "workerpool<i>".
std::string WorkerPoolName(TaskType type) {
  return absl::StrCat("workerpool", static_cast<int>(type));
}

// The cluster of a Vertex job's CLUSTER_SPEC, by worker pool.
Json VertexCluster(const std::vector<ReplicaRequest>& requests,
                   const std::vector<ReplicaPlacement>& placement) {
  Json cluster = Json::object();
  for (size_t i = 0; i < requests.size(); ++i) {
    // Evaluators have no address (TF_CONFIG leaves them out too).
    if (requests[i].type == TaskType::kEvaluator) continue;
    cluster[WorkerPoolName(requests[i].type)].push_back(Address(placement[i]));
  }
  return cluster;
}

// What every replica of a trial is given alike.
struct TrialEnv {
  const JobSpec& job;
  const TrialContext& context;
  std::string trial;
  bool chief = false;
  Json cluster;
  Json vertex_cluster;    // By worker pool, for a Vertex job's CLUSTER_SPEC.
  bool tf_config = true;  // Whether the replicas get TF_CONFIG.
  int world_size = 1;     // The master and the workers.
  Json training_input;
  AipDirs aip;
  std::filesystem::path working_dir;
  const ReplicaPlacement& master;
};

// Vertex AI sets TF_CONFIG on the replicas of distributed jobs only, not
// on a job of one replica (cloud.google.com/vertex-ai/docs/training/
// distributed-training, "TF_CONFIG"): a TensorFlow trainer that finds one
// takes itself for part of a cluster. AI Platform sets it on every job.
bool SetsTfConfig(const JobSpec& job,
                  const std::vector<ReplicaRequest>& requests) {
  return job.dialect != SpecDialect::kVertex || requests.size() > 1;
}

// CLUSTER_SPEC as Vertex AI sets it (cloud.google.com/vertex-ai/docs/
// training/distributed-training, "CLUSTER_SPEC"): the cluster by worker
// pool, this replica's task as its pool and index with the trial, and the
// job.
Json VertexClusterSpec(const TrialEnv& trial, const ReplicaRequest& request) {
  return {{"cluster", trial.vertex_cluster},
          {"environment", "cloud"},
          {"task",
           {{"type", WorkerPoolName(request.type)},
            {"index", request.index},
            {"trial", trial.trial}}},
          {"job", trial.training_input}};
}

// One replica's variables over `env` (the trainer command's).
std::map<std::string, std::string> ReplicaEnv(
    const TrialEnv& trial, const ReplicaRequest& request,
    const ReplicaPlacement& placement, std::map<std::string, std::string> env) {
  const JobSpec& job = trial.job;
  const std::string type(TfConfigTaskType(request.type, trial.chief));
  Json task = {{"type", type},
               {"index", request.index},
               {"trial", trial.trial},
               {"cloud", absl::StrCat(job.job_id, "-", trial.trial)}};
  Json tf_config = {{"cluster", trial.cluster},
                    {"task", task},
                    {"job", trial.training_input},
                    {"environment", "cloud"}};
  Json cluster_spec = trial.job.dialect == SpecDialect::kVertex
                          ? VertexClusterSpec(trial, request)
                          : Json{{"cluster", trial.cluster}, {"task", task}};
  if (trial.tf_config) env["TF_CONFIG"] = tf_config.dump();
  env["CLUSTER_SPEC"] = cluster_spec.dump();
  env["CLOUD_ML_TRIAL_ID"] = trial.trial;
  env["CLOUD_ML_JOB_ID"] = job.job_id;
  env["CLOUD_ML_HP_METRIC_FILE"] =
      ReplicaMetricsPath(trial.working_dir, request.type, request.index,
                         trial.chief)
          .string();
  env["CLOUD_ML_HP_METRIC_TAG"] = trial.context.metric_tag;
  env["AIP_MODEL_DIR"] = trial.aip.model;
  env["AIP_CHECKPOINT_DIR"] = trial.aip.checkpoint;
  env["AIP_TENSORBOARD_LOG_DIR"] = trial.aip.tensorboard;
  env["MASTER_ADDR"] = trial.master.host;
  env["MASTER_PORT"] = std::to_string(trial.master.port);
  env["WORLD_SIZE"] = std::to_string(trial.world_size);
  if (request.type == TaskType::kMaster) {
    env["RANK"] = "0";
  } else if (request.type == TaskType::kWorker) {
    env["RANK"] = std::to_string(request.index + 1);
  }
  // Set even when empty: an unset variable would show the replica every
  // GPU of the host.
  env["CUDA_VISIBLE_DEVICES"] = absl::StrJoin(placement.gpus, ",");
  return env;
}

// The pool's own variables (Vertex's containerSpec.env) under the ones
// hptune sets: TF_CONFIG and the rest describe the trial and cannot be
// replaced. A container gets no host PYTHONPATH.
std::map<std::string, std::string> PoolEnv(
    const TaskPool& pool, std::map<std::string, std::string> env) {
  if (!pool.container.empty()) env.erase("PYTHONPATH");
  for (const EnvVar& var : pool.env) env.emplace(var.name, var.value);
  return env;
}

// What follows the image: the pool's args (with pythonPackageSpec, the
// module first: the launcher's entrypoint installs the packages and runs
// `python3 -m <module>`), then the job's args, --job-dir and parameters.
std::vector<std::string> ContainerArgv(const ContainerSpec& spec,
                                       const std::vector<std::string>& tail) {
  std::vector<std::string> argv;
  if (!spec.python_module.empty()) argv.push_back(spec.python_module);
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  argv.insert(argv.end(), tail.begin(), tail.end());
  return argv;
}

// The host directories a container replica is given paths under: its
// trial's directory (logs, metric files), the AIP_* base and the local
// job dir of the trial, each once.
std::vector<std::filesystem::path> ContainerMounts(
    const TrialContext& context, const std::filesystem::path& trial_dir) {
  std::vector<std::filesystem::path> mounts = {trial_dir};
  auto add = [&mounts](const std::filesystem::path& dir) {
    if (dir.empty() || IsUrl(dir)) return;
    for (const std::filesystem::path& mount : mounts) {
      const std::string inside = mount.string() + "/";
      if (dir == mount || dir.string().starts_with(inside)) return;
    }
    mounts.push_back(dir);
  };
  add(TrialOutputBase(context));
  add(CheckpointBase(context));
  if (!context.job_dir.empty()) {
    add(ForReplicas(context, context.job_dir / std::to_string(context.trial)));
  }
  return mounts;
}

}  // namespace

namespace {

// Makes `replica` run in its pool's container: the spec (a Vertex job's
// $(VAR) expanded from the replica's environment), the host directories
// and GPUs it is given, and as argv what follows the image.
void PutInContainer(const TrialContext& context, const TaskPool& pool,
                    const std::vector<std::string>& tail,
                    const std::vector<std::filesystem::path>& mounts,
                    const std::vector<int>& gpus, ReplicaLaunch& replica) {
  const JobSpec& job = *context.job;
  ContainerSpec spec = pool.container;
  if (job.dialect == SpecDialect::kVertex) {  // Kubernetes' $(VAR).
    spec.command = ExpandVariableReferences(spec.command, replica.env);
    spec.args = ExpandVariableReferences(spec.args, replica.env);
  }
  replica.argv = ContainerArgv(spec, tail);
  replica.container = ReplicaContainer{.spec = std::move(spec),
                                       .mounts = mounts,
                                       .gcs_root = context.gcs_root,
                                       .gpus = gpus};
}

}  // namespace

absl::StatusOr<TrialLaunch> BuildTrialLaunch(
    const TrialContext& context, const std::vector<ReplicaRequest>& requests,
    const std::vector<ReplicaPlacement>& placement) {
  if (context.job == nullptr) {
    return absl::InvalidArgumentError("trial context without a job");
  }
  const JobSpec& job = *context.job;
  const bool chief = job.use_chief_in_tf_config;
  const std::string trial = std::to_string(context.trial);
  HPTUNE_RETURN_IF_ERROR(CheckPlacement(requests, placement));

  std::vector<std::string> command;
  std::map<std::string, std::string> command_env;
  if (job.RunsHostTrainer()) {
    HPTUNE_RETURN_IF_ERROR(TrainerCommand(context, &command, &command_env));
  }
  HPTUNE_ASSIGN_OR_RETURN(std::vector<std::string> parameter_flags,
                          ParameterFlags(context));
  HPTUNE_ASSIGN_OR_RETURN(Json training_input, TrainingInput(context));

  // What follows the trainer: the job's args, --job-dir (as gcloud, only
  // when the job has a jobDir) and the parameters.
  std::vector<std::string> tail = job.args;
  if (!context.job_dir.empty()) {
    tail.push_back(absl::StrCat(
        "--job-dir=", ForReplicas(context, context.job_dir / trial).string()));
  }
  tail.insert(tail.end(), parameter_flags.begin(), parameter_flags.end());
  std::vector<std::string> argv = command;
  argv.insert(argv.end(), tail.begin(), tail.end());
  const auto workers = std::count_if(
      requests.begin(), requests.end(),
      [](const ReplicaRequest& r) { return r.type == TaskType::kWorker; });
  const TrialEnv shared{.job = job,
                        .context = context,
                        .trial = trial,
                        .chief = chief,
                        .cluster = ClusterJson(requests, placement, chief),
                        .vertex_cluster = VertexCluster(requests, placement),
                        .tf_config = SetsTfConfig(job, requests),
                        .world_size = 1 + static_cast<int>(workers),
                        .training_input = std::move(training_input),
                        .aip = TrialOutputDirs(context),
                        // Each replica runs in its trial's directory, never in
                        // the caller's: a relative path that worked by accident
                        // would not on the next machine.
                        .working_dir = ForReplicas(context, context.trial_dir),
                        .master = placement[0]};

  const std::vector<std::filesystem::path> mounts =
      ContainerMounts(context, shared.working_dir);
  TrialLaunch launch{.job_id = job.job_id, .trial = context.trial};
  for (size_t i = 0; i < requests.size(); ++i) {
    const ReplicaRequest& request = requests[i];
    const TaskPool& pool = job.pool(request.type);
    ReplicaLaunch replica{
        .type = request.type,
        .index = request.index,
        .argv = argv,
        .env = ReplicaEnv(shared, request, placement[i],
                          PoolEnv(pool, command_env)),
        .working_dir = shared.working_dir,
        .log_path = ReplicaLogPath(context.trial_dir, request.type,
                                   request.index, chief),
        .metrics_path = ReplicaMetricsPath(shared.working_dir, request.type,
                                           request.index, chief)};
    if (!pool.container.empty()) {
      PutInContainer(context, pool, tail, mounts, placement[i].gpus, replica);
    }
    launch.replicas.push_back(std::move(replica));
  }
  return launch;
}

}  // namespace hptune::launch
