// The `podman run` command line that runs one replica in its pool's OCI
// image (docs/trainer.md, "Containers"), and the names and labels by which
// a later hptune process finds the containers a killed one left.
//
// The local launcher runs this command in the foreground, in the replica's
// process group and cgroup, so restarts, stopping, log capture and exit
// codes stay those of a process: podman forwards SIGTERM to the container,
// passes its stdout and stderr straight to the replica's log, and exits
// with its code. Pure functions but for the working directory a relative
// log path is taken from (ReplicaMarker), read through the Env handed in;
// thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_LOCAL_PODMAN_ARGV_H_
#define HPTUNE_SRC_LAUNCH_LOCAL_PODMAN_ARGV_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch {

// A resource limit given to the container: podman 4.3 sets RLIMIT_NOFILE
// to 1048576 and RLIMIT_NPROC to 32768 by default, which a process without
// CAP_SYS_RESOURCE cannot raise to; the replica gets hptune's own instead,
// as a host process would.
struct Rlimit {
  uint64_t soft = 0;
  uint64_t hard = 0;
};

// What the machine decides about a container run.
struct PodmanOptions {
  std::string podman = "podman";
  // The container and conmon go into sub-cgroups of the cgroup podman is
  // started in (`--cgroups=split`), so killing the replica's cgroup kills
  // them; set where the launcher starts replicas in cgroups of their own.
  bool split_cgroups = false;
  // GPUs as CDI devices (nvidia.com/gpu=<index>, NVIDIA's container
  // toolkit), which also mount the driver's libraries; else the device
  // nodes /dev/nvidia<index> and `control_devices`.
  bool cdi_gpus = false;
  std::vector<std::string> control_devices;  // /dev/nvidiactl, ...
  Rlimit nofile{1024, 1024};
  Rlimit nproc{4096, 4096};
};

// "hptune-<job>-<trial>-<replica>-<8 hex digits>": unique per runs
// directory (the digits hash the job's runs directory), the same for every
// start of the replica, so a restart replaces what a killed start left.
std::string ContainerName(Env& env, const ReplicaLaunch& replica);

// The label every container of a job carries: its runs directory,
// <runs_dir>/<job>, absolute. `podman ps --filter label=<this>` lists them.
std::string ContainerJobLabel(const std::filesystem::path& job_runs_dir);

// Where pythonPackageSpec's packages are bound in the container.
inline constexpr char kContainerPackageDir[] = "/hptune/packages";

// Where --gcs-root is bound in the container (ReplicaContainer::gcs_root),
// as Vertex AI mounts Cloud Storage: gs://B/P is /gcs/B/P.
inline constexpr char kGcsMountPoint[] = "/gcs";

// Where another user's replica's variables are given to root's podman:
// <runs_dir>/<job>/.<trial>-<replica>.env, in the job's directory, which
// stays root's (docs/operations.md, "Several users on one server").
std::filesystem::path ContainerEnvFile(Env& env, const ReplicaLaunch& replica);

// The argv that runs `replica` (which has a container) in the foreground:
// --rm, --init, --replace, its name and labels, the host's network,
// --pull=never, the names of its environment's variables as --env (the
// values are podman's own environment: the replica's) or, for a replica of
// another user (run_as), --env-file=ContainerEnvFile and that user's
// identity, its mounts at the same paths, only its GPUs, then the image,
// the entrypoint and replica.argv. InvalidArgument naming the field when
// the image is empty, a mount's path holds ':' (podman's separator), or a
// package path is not absolute or two share a file name.
absl::StatusOr<std::vector<std::string>> PodmanRunArgv(
    Env& env, const ReplicaLaunch& replica, const PodmanOptions& options);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_LOCAL_PODMAN_ARGV_H_
