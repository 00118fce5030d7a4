#include "src/launch/local/container_trial_run.h"

#include <utility>

#include "src/launch/local/container_replicas.h"
#include "src/launch/local/podman_argv.h"

namespace hptune::launch {

ContainerTrialRun::ContainerTrialRun(Env& env, std::unique_ptr<TrialRun> run,
                                     const TrialLaunch& launch)
    : env_(env),
      run_(std::move(run)),
      containers_(ContainerNames(env, launch)),
      replicas_(static_cast<int>(launch.replicas.size())) {}

ContainerTrialRun::~ContainerTrialRun() {
  // The local run's destructor stops what is left, as Terminate does.
  bool anything_left = false;
  for (int replica = 0; run_ && replica < replicas_; ++replica) {
    anything_left = anything_left || run_->IsRunning(replica);
  }
  run_.reset();
  if (anything_left) RemoveContainers(env_, containers_);
}

absl::StatusOr<std::vector<ReplicaExit>> ContainerTrialRun::Poll() {
  return run_->Poll();
}

absl::Status ContainerTrialRun::Restart(int replica) {
  return run_->Restart(replica);
}

bool ContainerTrialRun::IsRunning(int replica) const {
  return run_->IsRunning(replica);
}

bool ContainerTrialRun::Queued() const { return run_->Queued(); }

std::vector<int> ContainerTrialRun::ExitFds() const { return run_->ExitFds(); }

void ContainerTrialRun::Terminate(std::chrono::milliseconds grace) {
  run_->Terminate(grace);
  RemoveContainers(env_, containers_);
}

std::vector<std::string> ContainerNames(Env& env, const TrialLaunch& launch) {
  std::vector<std::string> names;
  for (const ReplicaLaunch& replica : launch.replicas) {
    if (replica.container.has_value())
      names.push_back(ContainerName(env, replica));
  }
  return names;
}

}  // namespace hptune::launch
