#include "hptune/launch/slurm_launcher.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hptune/core/check.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/env/env.h"
#include "hptune/launch/replica_env.h"
#include "src/launch/local/container_replicas.h"
#include "src/launch/local/port_reservation.h"
#include "src/launch/slurm/slurm_allocations.h"
#include "src/launch/slurm/slurm_commands.h"
#include "src/launch/slurm/slurm_scripts.h"
#include "src/launch/slurm/slurm_step_run.h"
#include "src/launch/slurm/slurm_submission.h"
#include "src/launch/slurm/slurm_trial_run.h"

namespace hptune::launch {
namespace {

using slurm_internal::Components;
using slurm_internal::ComponentsOf;
using slurm_internal::JobOfLaunch;
using slurm_internal::NewAllocationDir;
using slurm_internal::NewAttemptDir;
using slurm_internal::RunSlurm;
using slurm_internal::SbatchResources;
using slurm_internal::SlurmTrialRun;
using slurm_internal::Submit;
using slurm_internal::WriteAttemptFiles;

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

std::string Describe(const ReplicaLaunch& replica) {
  return absl::StrCat(std::string(ToString(replica.type)), " ", replica.index);
}

std::string SlurmConfDescription() {
  const char* conf = std::getenv("SLURM_CONF");
  return conf != nullptr ? absl::StrCat("SLURM_CONF=", conf)
                         : std::string(
                               "SLURM_CONF is not set (Slurm reads "
                               "/etc/slurm/slurm.conf)");
}

// FailedPrecondition when partition `name` ("": the default one) cannot
// run a job for `limit` (scheduling.maxRunningTime).
absl::Status CheckPartitionTime(Env& env, const std::string& name,
                                std::chrono::microseconds limit) {
  auto partition = slurm_internal::QueryPartition(env, name);
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
      pool_(std::make_shared<slurm_internal::AllocationPool>(*options_.env)) {}

SlurmLauncher::~SlurmLauncher() = default;

absl::StatusOr<std::unique_ptr<SlurmLauncher>> SlurmLauncher::Create(
    SlurmOptions options) {
  HPTUNE_CHECK(options.env != nullptr, "SlurmOptions::env is required");
  for (const char* command :
       {"sbatch", "squeue", "scancel", "scontrol", "sinfo"}) {
    if (!slurm_internal::OnPath(command)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the Slurm backend needs `", command,
          "`, which is not on PATH (Debian: apt-get install slurm-client)"));
    }
  }
  auto ping = RunSlurm(*options.env, {"scontrol", "ping"});
  if (!ping.ok() || ping->find("DOWN") != std::string::npos) {
    std::string said(absl::StripAsciiWhitespace(
        ping.ok() ? *ping : std::string(ping.status().message())));
    return absl::UnavailableError(
        absl::StrCat("the Slurm controller is unreachable: `scontrol ping` "
                     "says: ",
                     said, "; ", SlurmConfDescription()));
  }
  auto gres = RunSlurm(*options.env, {"sinfo", "-h", "-N", "-o", "%N %G"});
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
    const std::string replica = DescribeReplica(r);
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
                          PortReservation::Reserve(*options_.env, servers));
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
        *options_.env,
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
  HPTUNE_ASSIGN_OR_RETURN(const std::filesystem::path absolute_trial_dir,
                          options_.env->Absolute(trial_dir));
  HPTUNE_ASSIGN_OR_RETURN(
      std::filesystem::path dir,
      NewAttemptDir(*options_.env, absolute_trial_dir / "slurm"));
  // A container replica's step runs `podman run` on its node; the task
  // script's environment, node addresses in place, is what podman passes.
  TrialLaunch wrapped = launch;
  HPTUNE_RETURN_IF_ERROR(WrapContainerReplicas(
      MachinePodmanOptions(*options_.env, /*split_cgroups=*/false),
      *options_.env, &wrapped));
  HPTUNE_RETURN_IF_ERROR(
      WriteAttemptFiles(*options_.env, dir, wrapped, components));
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
      Submit(*options_.env, JobName(launch.job_id, launch.trial), dir,
             resources, "job.sh"));
  return std::make_unique<SlurmTrialRun>(
      *options_.env, id, dir, static_cast<int>(launch.replicas.size()),
      options_.state_poll_interval);
}

absl::StatusOr<std::unique_ptr<TrialRun>> SlurmLauncher::StartInAllocation(
    const TrialLaunch& launch, const std::filesystem::path& dir,
    const std::vector<std::string>& resources) {
  // Trials of the job with the same replicas and options share allocations.
  const std::string shape =
      absl::StrCat(options_.env->ReadFile(dir / "layout").value_or(""),
                   options_.env->ReadFile(dir / "components").value_or(""),
                   absl::StrJoin(resources, "\n"));
  auto submit = [&]() -> absl::StatusOr<slurm_internal::Allocation> {
    HPTUNE_ASSIGN_OR_RETURN(std::filesystem::path allocation_dir,
                            NewAllocationDir(*options_.env, dir));
    HPTUNE_ASSIGN_OR_RETURN(std::string id,
                            Submit(*options_.env, AllocationName(launch.job_id),
                                   allocation_dir, resources, "hold.sh"));
    return slurm_internal::Allocation{.slurm_job = id,
                                      .dir = allocation_dir,
                                      .job_id = launch.job_id,
                                      .shape = shape};
  };
  HPTUNE_ASSIGN_OR_RETURN(
      std::shared_ptr<const slurm_internal::Allocation> allocation,
      pool_->Take(launch.job_id, shape, submit));
  auto run = slurm_internal::StepTrialRun::Start(*options_.env, launch, dir,
                                                 pool_, std::move(allocation),
                                                 options_.state_poll_interval);
  if (!run.ok()) return run.status();
  return std::unique_ptr<TrialRun>(*std::move(run));
}

void SlurmLauncher::EndJob(const std::string& job_id) { pool_->EndJob(job_id); }

void SlurmLauncher::StopLeftovers(const std::filesystem::path& job_runs_dir,
                                  std::chrono::milliseconds grace) {
  (void)grace;
  absl::StatusOr<std::filesystem::path> absolute =
      options_.env->Absolute(job_runs_dir);
  if (!absolute.ok()) return;  // No working directory: no runs to find.
  std::filesystem::path dir = absolute->lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  auto out = RunSlurm(
      *options_.env,
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
      *options_.env,
      std::vector<std::string>(leftovers.begin(), leftovers.end()));
}

absl::StatusOr<std::unique_ptr<TrialRun>> SlurmLauncher::Reattach(
    const TrialLaunch& launch) {
  const std::string name = JobName(launch.job_id, launch.trial);
  HPTUNE_ASSIGN_OR_RETURN(
      std::string out,
      RunSlurm(*options_.env,
               {"squeue", "-h", absl::StrCat("--name=", name), "-t",
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
    (void)RunSlurm(*options_.env,
                   {"scancel", "--quiet", std::to_string(it->first)});
  }
  std::filesystem::path dir = newest->second;
  if (!options_.env->Exists(dir / "layout")) {
    // Not ours, or its files are gone: it cannot be watched, so it goes.
    (void)RunSlurm(*options_.env,
                   {"scancel", "--quiet", std::to_string(newest->first)});
    return nullptr;
  }
  return std::unique_ptr<TrialRun>(SlurmTrialRun::Attach(
      *options_.env, std::to_string(newest->first), dir,
      static_cast<int>(launch.replicas.size()), options_.state_poll_interval));
}

}  // namespace hptune::launch
