#include "hptune/launch/local_launcher.h"

#include <sys/prctl.h>

#include <utility>

#include "hptune/core/check.h"
#include "hptune/core/status.h"
#include "src/launch/child_processes.h"
#include "src/launch/local/container_replicas.h"
#include "src/launch/local/container_trial_run.h"
#include "src/launch/local/local_trial_run.h"
#include "src/launch/local/port_reservation.h"
#include "src/launch/local/replica_process.h"
#include "src/launch/local/trial_cgroup.h"

namespace hptune::launch {
namespace {

// Ports and GPUs of one trial, held until the job runner drops it.
class LocalPlacement : public Placement {
 public:
  LocalPlacement(std::vector<ReplicaPlacement> replicas,
                 std::unique_ptr<GpuLease> gpus,
                 std::unique_ptr<PortReservation> ports)
      : replicas_(std::move(replicas)),
        gpus_(std::move(gpus)),
        ports_(std::move(ports)) {}

  const std::vector<ReplicaPlacement>& replicas() const override {
    return replicas_;
  }

 private:
  std::vector<ReplicaPlacement> replicas_;
  std::unique_ptr<GpuLease> gpus_;
  std::unique_ptr<PortReservation> ports_;
};

Env& RequiredEnv(Env* env) {
  HPTUNE_CHECK(env != nullptr, "LocalLauncherOptions::env is required");
  return *env;
}

}  // namespace

LocalLauncher::LocalLauncher(LocalLauncherOptions options)
    : env_(RequiredEnv(options.env)),
      gpus_(std::move(options.gpus)),
      host_(std::move(options.host)),
      reattach_grace_(options.reattach_grace),
      pull_images_(options.pull_images) {}

absl::Status LocalLauncher::BeginJob(const JobSpec& job) {
  return CheckJobImages(env_, job, pull_images_);
}

LocalLauncher::~LocalLauncher() = default;

absl::Status LocalLauncher::CheckFits(
    const std::vector<ReplicaRequest>& requests) const {
  return gpus_.CheckFits(requests);
}

absl::StatusOr<std::unique_ptr<Placement>> LocalLauncher::Reserve(
    const std::vector<ReplicaRequest>& requests) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<GpuLease> gpus,
                          gpus_.Allocate(requests));
  int servers = 0;
  for (const ReplicaRequest& request : requests) {
    if (request.type != TaskType::kEvaluator) ++servers;
  }
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<PortReservation> ports,
                          PortReservation::Reserve(env_, servers, host_));
  std::vector<ReplicaPlacement> replicas;
  size_t next_port = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    ReplicaPlacement placement{.host = host_, .gpus = gpus->gpus()[i]};
    if (requests[i].type != TaskType::kEvaluator) {
      placement.port = ports->ports()[next_port++];
    }
    replicas.push_back(std::move(placement));
  }
  return std::unique_ptr<Placement>(new LocalPlacement(
      std::move(replicas), std::move(gpus), std::move(ports)));
}

absl::StatusOr<std::unique_ptr<TrialRun>> LocalLauncher::Start(
    const TrialLaunch& launch) {
  TrialLaunch wrapped = launch;
  // In a replica cgroup of its own, podman puts conmon and the container in
  // sub-cgroups of it, so the replica's cgroup kill reaches them.
  HPTUNE_RETURN_IF_ERROR(WrapContainerReplicas(
      MachinePodmanOptions(env_, DetectCgroupSupport().usable), env_,
      &wrapped));
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<LocalTrialRun> run,
                          LocalTrialRun::Start(env_, wrapped));
  if (ContainerNames(env_, launch).empty()) {
    return std::unique_ptr<TrialRun>(std::move(run));
  }
  return std::unique_ptr<TrialRun>(
      new ContainerTrialRun(env_, std::move(run), launch));
}

absl::StatusOr<std::unique_ptr<TrialRun>> LocalLauncher::Reattach(
    const TrialLaunch& launch) {
  for (const ReplicaLaunch& replica : launch.replicas) {
    StopMarkedProcesses(env_, ReplicaMarker(env_, replica), reattach_grace_);
  }
  if (!launch.replicas.empty()) {
    KillRecordedCgroup(env_, launch.replicas.front().log_path.parent_path(),
                       reattach_grace_);
  }
  return std::unique_ptr<TrialRun>();
}

void LocalLauncher::StopLeftovers(const std::filesystem::path& job_runs_dir,
                                  std::chrono::milliseconds grace) {
  StopLeftoverReplicas(env_, job_runs_dir, grace);
}

int StopLeftoverReplicas(Env& env, const std::filesystem::path& job_runs_dir,
                         std::chrono::milliseconds grace) {
  absl::StatusOr<std::filesystem::path> absolute = env.Absolute(job_runs_dir);
  if (!absolute.ok()) return 0;
  const std::filesystem::path dir = absolute->lexically_normal();
  // The trailing slash keeps job "a" from matching job "ab".
  int stopped = StopMarkedProcessesUnder(env, dir.string() + "/", grace);
  for (const DirectoryEntry& trial :
       env.ListDirectory(dir).value_or(std::vector<DirectoryEntry>())) {
    if (trial.type == FileType::kDirectory) {
      stopped += KillRecordedCgroup(env, dir / trial.name, grace);
    }
  }
  // Their processes are gone; podman still lists them (running, for a
  // killed conmon) until they are removed.
  return stopped + RemoveLeftoverContainers(env, dir);
}

std::string ReplicaContainment() { return DetectCgroupSupport().description; }

void BecomeChildSubreaper(Env& process_env) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  StartOrphanCollector(process_env);
}

}  // namespace hptune::launch
