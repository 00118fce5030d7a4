#include "src/launch/slurm/slurm_submission.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/core/stored_spec.h"
#include "hptune/env/env.h"
#include "src/launch/slurm/slurm_commands.h"
#include "src/launch/slurm/slurm_scripts.h"

namespace hptune::launch::slurm_internal {
namespace {

// `gpu_types` as in SlurmOptions; a GPU type it lacks (CheckFits refused
// it) is asked for untyped.
Shape ShapeOf(const JobSpec& job, TaskType type,
              const MachineCatalogue& catalogue,
              const std::map<std::string, std::string>& gpu_types) {
  const TaskPool& pool = job.pool(type);
  Shape shape;
  if (const MachineType* machine = catalogue.Find(pool.machine_type)) {
    shape.cpus = std::max(1, machine->vcpus);
    shape.mem_per_cpu_mb =
        static_cast<int>(std::ceil(machine->memory_gb * 1024.0 / shape.cpus));
  }
  const AcceleratorConfig gpus = catalogue.GpusPerReplica(pool);
  shape.gpus = gpus.count;
  if (auto it = gpu_types.find(gpus.type);
      shape.gpus > 0 && it != gpu_types.end()) {
    shape.gres_type = it->second;
  }
  return shape;
}

// An attempt's file, written whole (its readers are the scripts of a job
// that may already be running); rewritten only by the next attempt's
// directory, so not synced.
absl::Status WriteFile(Env& env, const std::filesystem::path& path,
                       const std::string& text) {
  return env.WriteFileAtomically(path, text, 0644, Durability::kUnsynced);
}

std::string NulJoined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    out += item;
    out += '\0';
  }
  return out;
}

}  // namespace

// The catalogue judged the job when it was accepted; decoding checks no
// rules, so a machine type dropped from it since does not strand the job.
absl::StatusOr<JobSpec> JobOfLaunch(const TrialLaunch& launch,
                                    const MachineCatalogue& /*catalogue*/) {
  // A Vertex job of one replica has no TF_CONFIG; its CLUSTER_SPEC carries
  // the job too.
  const auto& env = launch.replicas.front().env;
  auto found = env.find("TF_CONFIG");
  if (found == env.end()) found = env.find("CLUSTER_SPEC");
  if (found == env.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("job \"", launch.job_id, "\" trial ", launch.trial,
                     ": master 0 has no TF_CONFIG to read its job from"));
  }
  const std::string& name = found->first;
  absl::StatusOr<JobSpec> job = DecodeTfConfigJob(found->second);
  if (absl::IsNotFound(job.status())) {
    return absl::InvalidArgumentError(
        absl::StrCat("job \"", launch.job_id, "\" trial ", launch.trial, ": ",
                     name, " has no \"job\": ", found->second.substr(0, 80)));
  }
  if (!job.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("job \"", launch.job_id, "\": ", name,
                     "'s job does not parse: ", job.status().message()));
  }
  return job;
}

absl::StatusOr<std::filesystem::path> NewAttemptDir(
    Env& env, const std::filesystem::path& base) {
  HPTUNE_RETURN_IF_ERROR(env.CreatePrivateDirectories(base));
  int last = 0;
  for (const DirectoryEntry& entry :
       env.ListDirectory(base).value_or(std::vector<DirectoryEntry>())) {
    int n = 0;
    if (absl::SimpleAtoi(entry.name, &n)) last = std::max(last, n);
  }
  std::filesystem::path dir = base / std::to_string(last + 1);
  HPTUNE_RETURN_IF_ERROR(env.CreatePrivateDirectories(dir));
  return dir;
}

Components ComponentsOf(const TrialLaunch& launch, const JobSpec& job,
                        const MachineCatalogue& catalogue,
                        const std::map<std::string, std::string>& gpu_types) {
  Components components;
  std::vector<Shape>& shapes = components.shapes;
  for (const ReplicaLaunch& replica : launch.replicas) {
    const Shape shape = ShapeOf(job, replica.type, catalogue, gpu_types);
    auto it = std::find_if(shapes.begin(), shapes.end(), [&](const Shape& c) {
      return c.gpus == shape.gpus && c.gres_type == shape.gres_type;
    });
    const int g = static_cast<int>(it - shapes.begin());
    if (it == shapes.end()) {
      shapes.push_back(shape);
      components.tasks.push_back(0);
    } else {
      const int64_t memory =
          std::max(static_cast<int64_t>(it->cpus) * it->mem_per_cpu_mb,
                   static_cast<int64_t>(shape.cpus) * shape.mem_per_cpu_mb);
      it->cpus = std::max(it->cpus, shape.cpus);
      it->mem_per_cpu_mb = static_cast<int>((memory + it->cpus - 1) / it->cpus);
    }
    ++components.tasks[g];
    components.component_of.push_back(g);
  }
  return components;
}

absl::Status WriteAttemptFiles(Env& env, const std::filesystem::path& dir,
                               const TrialLaunch& launch,
                               const Components& components) {
  std::string layout;
  for (int g : components.component_of) {
    const Shape& shape = components.shapes[g];
    absl::StrAppend(&layout, g, " ", shape.cpus, " ", shape.mem_per_cpu_mb, " ",
                    shape.gpus,
                    shape.gres_type.empty() ? "" : " " + shape.gres_type, "\n");
  }
  HPTUNE_RETURN_IF_ERROR(
      WriteFile(env, dir / "place.sh", slurm_internal::kPlacementScript));
  HPTUNE_RETURN_IF_ERROR(
      WriteFile(env, dir / "job.sh", slurm_internal::kSupervisorScript));
  HPTUNE_RETURN_IF_ERROR(
      WriteFile(env, dir / "task.sh", slurm_internal::kTaskScript));
  HPTUNE_RETURN_IF_ERROR(WriteFile(env, dir / "layout", layout));
  HPTUNE_RETURN_IF_ERROR(WriteFile(
      env, dir / "components", absl::StrCat(components.shapes.size(), "\n")));
  const std::filesystem::path cwd =
      env.WorkingDirectory().value_or(std::filesystem::path());
  for (size_t k = 0; k < launch.replicas.size(); ++k) {
    const ReplicaLaunch& replica = launch.replicas[k];
    std::vector<std::string> variables;
    for (const auto& [key, value] : replica.env) {
      // Slurm's gres plugin sets it for the GPUs the step really got.
      if (key == "CUDA_VISIBLE_DEVICES" &&
          components.shapes[components.component_of[k]].gpus > 0) {
        continue;
      }
      variables.push_back(absl::StrCat(key, "=", value));
    }
    const std::string prefix = absl::StrCat("r", k);
    HPTUNE_RETURN_IF_ERROR(
        WriteFile(env, dir / (prefix + ".env"), NulJoined(variables)));
    HPTUNE_RETURN_IF_ERROR(
        WriteFile(env, dir / (prefix + ".argv"), NulJoined(replica.argv)));
    HPTUNE_RETURN_IF_ERROR(WriteFile(
        env, dir / (prefix + ".log"),
        env.Absolute(replica.log_path).value_or(replica.log_path).string()));
    HPTUNE_RETURN_IF_ERROR(WriteFile(
        env, dir / (prefix + ".cwd"),
        (replica.working_dir.empty() ? cwd : replica.working_dir).string()));
  }
  return absl::OkStatus();
}

std::vector<std::string> SbatchResources(
    const Components& components, const SlurmJobOptions& launcher_options,
    const SlurmJobOptions& job_options) {
  std::vector<std::string> argv;
  for (const SlurmJobOptions* sbatch : {&launcher_options, &job_options}) {
    if (!sbatch->partition.empty()) {
      argv.push_back(absl::StrCat("--partition=", sbatch->partition));
    }
    if (!sbatch->account.empty()) {
      argv.push_back(absl::StrCat("--account=", sbatch->account));
    }
    if (!sbatch->time.empty()) {
      argv.push_back(absl::StrCat("--time=", sbatch->time));
    }
    argv.insert(argv.end(), sbatch->options.begin(), sbatch->options.end());
  }
  for (size_t g = 0; g < components.shapes.size(); ++g) {
    if (g > 0) argv.push_back(":");
    const Shape& shape = components.shapes[g];
    argv.push_back(absl::StrCat("--ntasks=", components.tasks[g]));
    argv.push_back(absl::StrCat("--cpus-per-task=", shape.cpus));
    argv.push_back(absl::StrCat("--mem-per-cpu=", shape.mem_per_cpu_mb));
    if (shape.gpus > 0) {
      argv.push_back(absl::StrCat(
          "--gpus-per-task=",
          shape.gres_type.empty() ? "" : shape.gres_type + ":", shape.gpus));
    }
  }
  return argv;
}

absl::StatusOr<std::string> Submit(Env& env, const std::string& name,
                                   const std::filesystem::path& dir,
                                   const std::vector<std::string>& resources,
                                   const std::string& script) {
  std::vector<std::string> argv = {
      "sbatch",
      "--parsable",
      absl::StrCat("--job-name=", name),
      absl::StrCat("--comment=", dir.string()),
      absl::StrCat("--output=", (dir / "batch.out").string()),
      "--open-mode=append",
      "--export=ALL"};
  argv.insert(argv.end(), resources.begin(), resources.end());
  argv.push_back((dir / script).string());
  argv.push_back(dir.string());
  auto submitted = RunSlurm(env, argv);
  if (!submitted.ok()) {
    return absl::Status(submitted.status().code(),
                        slurm_internal::ExplainSubmitError(
                            std::string(submitted.status().message())));
  }
  // --parsable prints "<id>" or "<id>;<cluster>".
  std::string id(absl::StripAsciiWhitespace(*submitted));
  id = id.substr(0, id.find(';'));
  int64_t numeric = 0;
  if (!absl::SimpleAtoi(id, &numeric)) {
    return absl::InternalError(
        absl::StrCat("sbatch printed no job ID: \"", *submitted, "\""));
  }
  return id;
}

absl::StatusOr<std::filesystem::path> NewAllocationDir(
    Env& env, const std::filesystem::path& attempt) {
  // <runs dir>/<job>/<trial>/slurm/<n>
  const std::filesystem::path job_runs_dir =
      attempt.parent_path().parent_path().parent_path();
  HPTUNE_ASSIGN_OR_RETURN(
      std::filesystem::path dir,
      NewAttemptDir(env, job_runs_dir / "slurm-allocations"));
  for (const char* file : {"place.sh", "layout", "components"}) {
    absl::StatusOr<std::string> text = env.ReadFile(attempt / file);
    absl::Status copied = text.status();
    if (copied.ok()) copied = WriteFile(env, dir / file, *text);
    if (!copied.ok()) {
      return absl::InternalError(absl::StrCat(
          "cannot copy ", (attempt / file).string(), ": ", copied.message()));
    }
  }
  HPTUNE_RETURN_IF_ERROR(
      WriteFile(env, dir / "hold.sh", slurm_internal::kHolderScript));
  return dir;
}

}  // namespace hptune::launch::slurm_internal
