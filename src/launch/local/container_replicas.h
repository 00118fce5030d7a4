// Replicas in OCI containers on this machine: the checks before a job whose
// pools name images starts, turning a trial's container replicas into
// `podman run` processes (podman_argv.h), and removing the containers a
// killed hptune process left. Internal to the local launcher; thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_LOCAL_CONTAINER_REPLICAS_H_
#define HPTUNE_SRC_LAUNCH_LOCAL_CONTAINER_REPLICAS_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hptune/core/job.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"
#include "src/launch/local/podman_argv.h"

namespace hptune::launch {

// This machine's podman options: hptune's own RLIMIT_NOFILE and
// RLIMIT_NPROC (within podman's defaults), the NVIDIA control nodes that
// exist, CDI when /etc/cdi or /var/run/cdi has an nvidia spec, and
// `split_cgroups` as given.
PodmanOptions MachinePodmanOptions(Env& env, bool split_cgroups);

// Every image the job's pools name is in podman's local storage, or is
// pulled first when `pull` is set. FailedPrecondition naming the field, the
// image and how to get it there:
//   trainingInput.masterConfig.imageUri: image "trainer:1" is not in
//   podman's local storage, and hptune pulls none unless asked: load it
//   (podman load -i trainer.tar) or pull it (podman pull trainer:1), or run
//   with --pull-images
// or that podman is missing (with what to install). OK for a job without
// images, whatever the machine has.
[[nodiscard]] absl::Status CheckJobImages(Env& env, const JobSpec& job,
                                          bool pull);

// Replaces the argv of each container replica of `launch` by its podman
// command line; host replicas are left as they are. Another user's
// container gets its env file written through `env`.
[[nodiscard]] absl::Status WrapContainerReplicas(const PodmanOptions& options,
                                                 Env& env, TrialLaunch* launch);

// podman rm --force --time=0 --ignore of `containers` (names or ids),
// tried again (up to 3 times) while podman fails; nothing when
// `containers` is empty or podman is not installed.
void RemoveContainers(Env& env, const std::vector<std::string>& containers);

// Removes (podman rm -f) every container labelled with `job_runs_dir`
// (ContainerJobLabel), running or not: what a killed hptune left. Returns
// how many; 0 where podman is not installed.
int RemoveLeftoverContainers(Env& env,
                             const std::filesystem::path& job_runs_dir);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_LOCAL_CONTAINER_REPLICAS_H_
