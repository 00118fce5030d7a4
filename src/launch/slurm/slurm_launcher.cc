#include "hptune/launch/slurm_launcher.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/env/env.h"
#include "nlohmann/json.hpp"
#include "src/launch/local/container_replicas.h"
#include "src/launch/local/port_reservation.h"
#include "src/launch/slurm/slurm_allocations.h"
#include "src/launch/slurm/slurm_commands.h"
#include "src/launch/slurm/slurm_scripts.h"
#include "src/launch/slurm/slurm_step_run.h"
#include "src/launch/slurm/slurm_trial_run.h"

namespace hptune::launch {
namespace {

using slurm_internal::RunSlurm;
using slurm_internal::SlurmTrialRun;

// Memory of a replica whose machine type the catalogue does not know (the
// BASIC tiers name none): a step must ask for some, or it would take all
// of its node's share of the job and block the other replicas there.
constexpr int kDefaultMemoryMb = 2048;

class SlurmPlacement : public Placement {
 public:
  SlurmPlacement(std::vector<ReplicaPlacement> replicas,
                 std::unique_ptr<PortReservation> ports)
      : replicas_(std::move(replicas)), ports_(std::move(ports)) {}
  const std::vector<ReplicaPlacement>& replicas() const override {
    return replicas_;
  }

 private:
  std::vector<ReplicaPlacement> replicas_;
  std::unique_ptr<PortReservation> ports_;
};

// What one replica asks Slurm for.
struct Shape {
  int cpus = 1;
  int mem_per_cpu_mb = kDefaultMemoryMb;
  int gpus = 0;
  std::string gres_type;  // "": GPUs of any type.
};

std::string Describe(const ReplicaLaunch& replica) {
  return absl::StrCat(std::string(ToString(replica.type)), " ", replica.index);
}

// The job every replica sees in TF_CONFIG, as a JobSpec with its scale tier
// resolved into pools.
absl::StatusOr<JobSpec> JobOfLaunch(const TrialLaunch& launch,
                                    const MachineCatalogue& catalogue) {
  auto env = launch.replicas.front().env.find("TF_CONFIG");
  if (env == launch.replicas.front().env.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("job \"", launch.job_id, "\" trial ", launch.trial,
                     ": master 0 has no TF_CONFIG to read its job from"));
  }
  auto tf_config = nlohmann::json::parse(env->second, nullptr, false);
  if (!tf_config.is_object() || !tf_config.contains("job")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job \"", launch.job_id, "\" trial ", launch.trial,
        ": TF_CONFIG has no \"job\": ", env->second.substr(0, 80)));
  }
  // TrainingInputToJson's form is {"trainingInput": {...}}; accept the bare
  // object too.
  nlohmann::json root = tf_config["job"];
  if (!root.contains("trainingInput")) {
    root = {{"trainingInput", tf_config["job"]}};
  }
  ConfigParseResult parsed =
      ParseJobConfig(catalogue, root.dump(), ConfigFormat::kJson);
  if (!parsed.job) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job \"", launch.job_id, "\": TF_CONFIG's job does not parse: ",
        FieldErrorsToStatus(parsed.errors).message()));
  }
  return *std::move(parsed.job);
}

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

absl::Status WriteFile(const std::filesystem::path& path,
                       const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return absl::InternalError(
        absl::StrCat("cannot write ", path.string(), ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

std::string NulJoined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    out += item;
    out += '\0';
  }
  return out;
}

// A fresh <trial dir>/slurm/<n> for this attempt.
absl::StatusOr<std::filesystem::path> NewAttemptDir(
    const std::filesystem::path& base) {
  HPTUNE_RETURN_IF_ERROR(CreatePrivateDirectories(base));
  std::error_code ec;
  int last = 0;
  for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
    int n = 0;
    if (absl::SimpleAtoi(entry.path().filename().string(), &n)) {
      last = std::max(last, n);
    }
  }
  std::filesystem::path dir = base / std::to_string(last + 1);
  HPTUNE_RETURN_IF_ERROR(CreatePrivateDirectories(dir));
  return dir;
}

std::string SlurmConfDescription() {
  const char* conf = std::getenv("SLURM_CONF");
  return conf != nullptr ? absl::StrCat("SLURM_CONF=", conf)
                         : std::string(
                               "SLURM_CONF is not set (Slurm reads "
                               "/etc/slurm/slurm.conf)");
}

// A trial's heterogeneous Slurm job: one component per distinct GPU count
// and type, in order of first use, each with the most CPUs and memory any
// of its replicas needs. Slurm puts components on different nodes, so fewer
// components fit more clusters.
struct Components {
  std::vector<Shape> shapes;
  std::vector<int> tasks;         // Replicas of each component.
  std::vector<int> component_of;  // Each replica's component.
};

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

// What the supervisor script reads in the attempt's directory: the
// scripts, each replica's component and shape (layout), and each replica's
// environment, argv, log path and working directory (r<k>.*).
absl::Status WriteAttemptFiles(const std::filesystem::path& dir,
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
      WriteFile(dir / "place.sh", slurm_internal::kPlacementScript));
  HPTUNE_RETURN_IF_ERROR(
      WriteFile(dir / "job.sh", slurm_internal::kSupervisorScript));
  HPTUNE_RETURN_IF_ERROR(
      WriteFile(dir / "task.sh", slurm_internal::kTaskScript));
  HPTUNE_RETURN_IF_ERROR(WriteFile(dir / "layout", layout));
  HPTUNE_RETURN_IF_ERROR(WriteFile(
      dir / "components", absl::StrCat(components.shapes.size(), "\n")));
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  for (size_t k = 0; k < launch.replicas.size(); ++k) {
    const ReplicaLaunch& replica = launch.replicas[k];
    std::vector<std::string> env;
    for (const auto& [key, value] : replica.env) {
      // Slurm's gres plugin sets it for the GPUs the step really got.
      if (key == "CUDA_VISIBLE_DEVICES" &&
          components.shapes[components.component_of[k]].gpus > 0) {
        continue;
      }
      env.push_back(absl::StrCat(key, "=", value));
    }
    const std::string prefix = absl::StrCat("r", k);
    HPTUNE_RETURN_IF_ERROR(WriteFile(dir / (prefix + ".env"), NulJoined(env)));
    HPTUNE_RETURN_IF_ERROR(
        WriteFile(dir / (prefix + ".argv"), NulJoined(replica.argv)));
    HPTUNE_RETURN_IF_ERROR(
        WriteFile(dir / (prefix + ".log"),
                  std::filesystem::absolute(replica.log_path).string()));
    HPTUNE_RETURN_IF_ERROR(WriteFile(
        dir / (prefix + ".cwd"),
        (replica.working_dir.empty() ? cwd : replica.working_dir).string()));
  }
  return absl::OkStatus();
}

// sbatch's resource options: the launcher's options, then the job's (sbatch
// takes the last of a repeated option), then each component's resources.
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

// Submits batch script `script` of directory `dir` (its comment, its output
// in batch.out) as job `name`; Slurm's job ID.
absl::StatusOr<std::string> Submit(const std::string& name,
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
  auto submitted = RunSlurm(argv);
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

// An allocation's directory under the job's runs directory, with what its
// holder reads, copied from the attempt's directory `attempt`.
absl::StatusOr<std::filesystem::path> NewAllocationDir(
    const std::filesystem::path& attempt) {
  // <runs dir>/<job>/<trial>/slurm/<n>
  const std::filesystem::path job_runs_dir =
      attempt.parent_path().parent_path().parent_path();
  HPTUNE_ASSIGN_OR_RETURN(std::filesystem::path dir,
                          NewAttemptDir(job_runs_dir / "slurm-allocations"));
  for (const char* file : {"place.sh", "layout", "components"}) {
    std::error_code ec;
    std::filesystem::copy_file(attempt / file, dir / file, ec);
    if (ec) {
      return absl::InternalError(absl::StrCat(
          "cannot copy ", (attempt / file).string(), ": ", ec.message()));
    }
  }
  HPTUNE_RETURN_IF_ERROR(
      WriteFile(dir / "hold.sh", slurm_internal::kHolderScript));
  return dir;
}

std::string FileText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// FailedPrecondition when partition `name` ("": the default one) cannot
// run a job for `limit` (scheduling.maxRunningTime).
absl::Status CheckPartitionTime(const std::string& name,
                                std::chrono::microseconds limit) {
  auto partition = slurm_internal::QueryPartition(name);
  if (!partition.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot check the Slurm partition",
        name.empty() ? "" : absl::StrCat(" \"", name, "\""),
        " against scheduling.maxRunningTime: ", partition.status().message()));
  }
  const std::optional<std::chrono::seconds> max_time =
      slurm_internal::SlurmDuration(partition->max_time);
  if (!max_time || *max_time >= limit) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("Slurm partition \"", partition->name,
                   "\" runs a job at most ", partition->max_time,
                   " (MaxTime, scontrol show partition), less than "
                   "the job's scheduling.maxRunningTime (",
                   FormatDurationSeconds(limit),
                   "): shorten maxRunningTime or choose "
                   "another partition (--slurm-partition, slurm.partition)"));
}

}  // namespace

std::string SlurmLauncher::JobName(const std::string& job_id, int64_t trial) {
  return absl::StrCat("hptune.", job_id, ".", trial);
}

std::string SlurmLauncher::AllocationName(const std::string& job_id) {
  return absl::StrCat("hptune.", job_id, ".allocation");
}

std::string_view ToString(SlurmAllocation allocation) {
  return allocation == SlurmAllocation::kPerTrial ? "per-trial" : "per-lane";
}

absl::StatusOr<SlurmAllocation> ParseSlurmAllocation(std::string_view value) {
  if (value == "per-lane") return SlurmAllocation::kPerLane;
  if (value == "per-trial") return SlurmAllocation::kPerTrial;
  return absl::InvalidArgumentError(
      absl::StrCat("--slurm-allocation: expected per-lane or per-trial, got \"",
                   std::string(value.substr(0, 80)), "\""));
}

std::string SlurmLauncher::HostPlaceholder(int replica) {
  return absl::StrCat("@hptune-host-", replica, "@");
}

SlurmLauncher::SlurmLauncher(SlurmOptions options, NodeGpus node_gpus)
    : options_(std::move(options)),
      node_gpus_(std::move(node_gpus)),
      pool_(std::make_shared<slurm_internal::AllocationPool>()) {}

SlurmLauncher::~SlurmLauncher() = default;

absl::StatusOr<std::unique_ptr<SlurmLauncher>> SlurmLauncher::Create(
    SlurmOptions options) {
  for (const char* command :
       {"sbatch", "squeue", "scancel", "scontrol", "sinfo"}) {
    if (!slurm_internal::OnPath(command)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the Slurm backend needs `", command,
          "`, which is not on PATH (Debian: apt-get install slurm-client)"));
    }
  }
  auto ping = RunSlurm({"scontrol", "ping"});
  if (!ping.ok() || ping->find("DOWN") != std::string::npos) {
    std::string said(absl::StripAsciiWhitespace(
        ping.ok() ? *ping : std::string(ping.status().message())));
    return absl::UnavailableError(
        absl::StrCat("the Slurm controller is unreachable: `scontrol ping` "
                     "says: ",
                     said, "; ", SlurmConfDescription()));
  }
  auto gres = RunSlurm({"sinfo", "-h", "-N", "-o", "%N %G"});
  if (!gres.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot list the Slurm nodes: ", gres.status().message(),
                     "; ", SlurmConfDescription()));
  }
  // One line per node and partition: "<node> <gres>".
  NodeGpus node_gpus;
  for (absl::string_view line :
       absl::StrSplit(*gres, '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> fields =
        absl::StrSplit(line, absl::MaxSplits(' ', 1));
    node_gpus[fields.first] = slurm_internal::GpusOfGres(fields.second);
  }
  return std::unique_ptr<SlurmLauncher>(
      new SlurmLauncher(std::move(options), std::move(node_gpus)));
}

absl::StatusOr<std::string> SlurmLauncher::GresType(
    const std::string& type) const {
  if (options_.gpu_types.empty()) return std::string();
  auto it = options_.gpu_types.find(type);
  if (it != options_.gpu_types.end()) return it->second;
  std::vector<std::string> mapped;
  for (const auto& [name, gres] : options_.gpu_types) mapped.push_back(name);
  return absl::NotFoundError(
      absl::StrCat("--slurm-gpu-type maps no Slurm GPU type to ", type,
                   " (it maps ", absl::StrJoin(mapped, ", "), ")"));
}

int SlurmLauncher::MostGpusOnANode(const std::string& gres) const {
  int most = 0;
  for (const auto& [node, gpus] : node_gpus_) {
    int n = 0;
    for (const auto& [type, count] : gpus) {
      if (gres.empty() || type == gres) n += count;
    }
    most = std::max(most, n);
  }
  return most;
}

absl::Status SlurmLauncher::CheckFits(
    const std::vector<ReplicaRequest>& requests) const {
  std::set<std::pair<int, std::string>> components;
  for (const ReplicaRequest& r : requests) {
    const std::string replica =
        absl::StrCat(std::string(ToString(r.type)), " ", r.index);
    std::string gres;
    if (r.gpu_count > 0) {
      absl::StatusOr<std::string> typed = GresType(r.gpu_type);
      if (!typed.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat(replica, " asks for ", r.gpu_count, " x ", r.gpu_type,
                         ", but ", typed.status().message()));
      }
      gres = *std::move(typed);
    }
    const int most = MostGpusOnANode(gres);
    if (r.gpu_count > most) {
      return absl::FailedPreconditionError(absl::StrCat(
          replica, " asks for ", r.gpu_count, " GPUs",
          gres.empty()
              ? ""
              : absl::StrCat(" of Slurm type ", gres, " (", r.gpu_type, ")"),
          ", but the Slurm nodes have at most ", most, " (sinfo)"));
    }
    components.insert({r.gpu_count, gres});
  }
  if (components.size() > node_gpus_.size()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the replicas ask for ", components.size(),
        " different GPU counts or types, each a component of a heterogeneous "
        "Slurm job on nodes of its own, but the cluster has ",
        node_gpus_.size(), " nodes (sinfo)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Placement>> SlurmLauncher::Reserve(
    const std::vector<ReplicaRequest>& requests) {
  HPTUNE_RETURN_IF_ERROR(CheckFits(requests));
  int servers = 0;
  for (const ReplicaRequest& r : requests) {
    if (r.type != TaskType::kEvaluator) ++servers;
  }
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<PortReservation> ports,
                          PortReservation::Reserve(servers));
  std::vector<ReplicaPlacement> replicas;
  int next_port = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    ReplicaPlacement p{.host = HostPlaceholder(static_cast<int>(i))};
    if (requests[i].type != TaskType::kEvaluator) {
      p.port = ports->ports()[next_port++];
    }
    replicas.push_back(std::move(p));
  }
  return std::make_unique<SlurmPlacement>(std::move(replicas),
                                          std::move(ports));
}

absl::Status SlurmLauncher::BeginJob(const JobSpec& job) {
  if (job.scheduling.max_running_time) {
    HPTUNE_RETURN_IF_ERROR(CheckPartitionTime(
        job.slurm.partition.empty() ? options_.sbatch.partition
                                    : job.slurm.partition,
        *job.scheduling.max_running_time));
  }
  MutexLock lock(&mutex_);
  job_options_[job.job_id] = job.slurm;
  return absl::OkStatus();
}

SlurmJobOptions SlurmLauncher::JobOptions(std::string_view job_id) const {
  MutexLock lock(&mutex_);
  auto it = job_options_.find(job_id);
  return it == job_options_.end() ? SlurmJobOptions{} : it->second;
}

absl::StatusOr<std::unique_ptr<TrialRun>> SlurmLauncher::Start(
    const TrialLaunch& launch) {
  if (launch.replicas.empty()) {
    return absl::InvalidArgumentError("a trial launch without replicas");
  }
  HPTUNE_ASSIGN_OR_RETURN(JobSpec job, JobOfLaunch(launch, options_.catalogue));
  const Components components =
      ComponentsOf(launch, job, options_.catalogue, options_.gpu_types);
  const std::filesystem::path trial_dir =
      launch.replicas.front().log_path.parent_path();
  HPTUNE_ASSIGN_OR_RETURN(
      std::filesystem::path dir,
      NewAttemptDir(std::filesystem::absolute(trial_dir) / "slurm"));
  // A container replica's step runs `podman run` on its node; the task
  // script's environment, node addresses in place, is what podman passes.
  TrialLaunch wrapped = launch;
  HPTUNE_RETURN_IF_ERROR(WrapContainerReplicas(
      MachinePodmanOptions(/*split_cgroups=*/false), &wrapped));
  HPTUNE_RETURN_IF_ERROR(WriteAttemptFiles(dir, wrapped, components));
  const std::vector<std::string> resources =
      SbatchResources(components, options_.sbatch, JobOptions(launch.job_id));
  auto run = options_.allocation == SlurmAllocation::kPerTrial
                 ? SubmitTrial(launch, dir, resources)
                 : StartInAllocation(launch, dir, resources);
  if (!run.ok()) {
    return absl::Status(
        run.status().code(),
        absl::StrCat("job \"", launch.job_id, "\" trial ", launch.trial,
                     ": cannot submit to Slurm (", Describe(launch.replicas[0]),
                     " and ", launch.replicas.size() - 1,
                     " more replicas): ", run.status().message()));
  }
  return run;
}

absl::StatusOr<std::unique_ptr<TrialRun>> SlurmLauncher::SubmitTrial(
    const TrialLaunch& launch, const std::filesystem::path& dir,
    const std::vector<std::string>& resources) {
  HPTUNE_ASSIGN_OR_RETURN(
      std::string id,
      Submit(JobName(launch.job_id, launch.trial), dir, resources, "job.sh"));
  return std::make_unique<SlurmTrialRun>(
      id, dir, static_cast<int>(launch.replicas.size()),
      options_.state_poll_interval);
}

absl::StatusOr<std::unique_ptr<TrialRun>> SlurmLauncher::StartInAllocation(
    const TrialLaunch& launch, const std::filesystem::path& dir,
    const std::vector<std::string>& resources) {
  // Trials of the job with the same replicas and options share allocations.
  const std::string shape =
      absl::StrCat(FileText(dir / "layout"), FileText(dir / "components"),
                   absl::StrJoin(resources, "\n"));
  auto submit = [&]() -> absl::StatusOr<slurm_internal::Allocation> {
    HPTUNE_ASSIGN_OR_RETURN(std::filesystem::path allocation_dir,
                            NewAllocationDir(dir));
    HPTUNE_ASSIGN_OR_RETURN(
        std::string id, Submit(AllocationName(launch.job_id), allocation_dir,
                               resources, "hold.sh"));
    return slurm_internal::Allocation{.slurm_job = id,
                                      .dir = allocation_dir,
                                      .job_id = launch.job_id,
                                      .shape = shape};
  };
  HPTUNE_ASSIGN_OR_RETURN(
      std::shared_ptr<const slurm_internal::Allocation> allocation,
      pool_->Take(launch.job_id, shape, submit));
  auto run = slurm_internal::StepTrialRun::Start(
      launch, dir, pool_, std::move(allocation), options_.state_poll_interval);
  if (!run.ok()) return run.status();
  return std::unique_ptr<TrialRun>(*std::move(run));
}

void SlurmLauncher::EndJob(const std::string& job_id) { pool_->EndJob(job_id); }

void SlurmLauncher::StopLeftovers(const std::filesystem::path& job_runs_dir,
                                  std::chrono::milliseconds grace) {
  (void)grace;
  std::filesystem::path dir =
      std::filesystem::absolute(job_runs_dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  auto out = RunSlurm(
      {"squeue", "-h",
       absl::StrCat("--name=", AllocationName(dir.filename().string())), "-o",
       "%i|%k"});
  if (!out.ok()) return;
  const std::string under = dir.string() + "/";
  std::set<std::string> leftovers;
  for (absl::string_view line : absl::StrSplit(*out, '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> fields = absl::StrSplit(
        absl::StripAsciiWhitespace(line), absl::MaxSplits('|', 1));
    if (absl::StartsWith(fields.second, under)) {
      leftovers.insert(fields.first.substr(0, fields.first.find('+')));
    }
  }
  slurm_internal::AllocationPool::Cancel(
      std::vector<std::string>(leftovers.begin(), leftovers.end()));
}

absl::StatusOr<std::unique_ptr<TrialRun>> SlurmLauncher::Reattach(
    const TrialLaunch& launch) {
  const std::string name = JobName(launch.job_id, launch.trial);
  HPTUNE_ASSIGN_OR_RETURN(
      std::string out,
      RunSlurm({"squeue", "-h", absl::StrCat("--name=", name), "-t",
                "PENDING,CONFIGURING,RUNNING,SUSPENDED", "-o", "%i|%k"}));
  // Newest last: job IDs grow. A het job shows one line per component
  // ("12+0", "12+1"), all with the same comment.
  std::map<int64_t, std::string> jobs;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> fields = absl::StrSplit(
        absl::StripAsciiWhitespace(line), absl::MaxSplits('|', 1));
    int64_t id = 0;
    std::string base = fields.first.substr(0, fields.first.find('+'));
    if (!absl::SimpleAtoi(base, &id)) continue;
    jobs[id] = fields.second;
  }
  if (jobs.empty()) return nullptr;
  auto newest = std::prev(jobs.end());
  for (auto it = jobs.begin(); it != newest; ++it) {
    (void)RunSlurm({"scancel", "--quiet", std::to_string(it->first)});
  }
  std::filesystem::path dir = newest->second;
  std::error_code ec;
  if (!std::filesystem::exists(dir / "layout", ec)) {
    // Not ours, or its files are gone: it cannot be watched, so it goes.
    (void)RunSlurm({"scancel", "--quiet", std::to_string(newest->first)});
    return nullptr;
  }
  return std::unique_ptr<TrialRun>(SlurmTrialRun::Attach(
      std::to_string(newest->first), dir,
      static_cast<int>(launch.replicas.size()), options_.state_poll_interval));
}

}  // namespace hptune::launch
