// A trial run with replicas in containers: the local run of their `podman
// run` processes, and on Terminate the removal of the replicas' containers
// that outlived them. A `podman run` stopped before its signal proxy is up,
// or a conmon killed with the replica's cgroup, leaves its container behind
// (podman still lists it, running or exited, and --rm never runs); Terminate
// removes such containers before it returns, so a cancelled trial leaves
// none. Internal to the local launcher; thread-compatible, as TrialRun is.
#ifndef HPTUNE_SRC_LAUNCH_LOCAL_CONTAINER_TRIAL_RUN_H_
#define HPTUNE_SRC_LAUNCH_LOCAL_CONTAINER_TRIAL_RUN_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch {

class ContainerTrialRun : public TrialRun {
 public:
  // `run` runs `launch`, some of whose replicas have containers.
  ContainerTrialRun(Env& env, std::unique_ptr<TrialRun> run,
                    const TrialLaunch& launch);
  ~ContainerTrialRun() override;

  absl::StatusOr<std::vector<ReplicaExit>> Poll() override;
  [[nodiscard]] absl::Status Restart(int replica) override;
  bool IsRunning(int replica) const override;
  bool Queued() const override;
  std::vector<int> ExitFds() const override;
  void Terminate(std::chrono::milliseconds grace) override;

 private:
  Env& env_;  // podman's output pipes are read through it.
  std::unique_ptr<TrialRun> run_;
  std::vector<std::string> containers_;
  int replicas_ = 0;
};

// The names of `launch`'s container replicas, in order; empty when it has
// none.
std::vector<std::string> ContainerNames(Env& env, const TrialLaunch& launch);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_LOCAL_CONTAINER_TRIAL_RUN_H_
