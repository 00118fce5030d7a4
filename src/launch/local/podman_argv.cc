#include "src/launch/local/podman_argv.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hptune/launch/replica_env.h"
#include "nlohmann/json.hpp"
#include "src/launch/local/replica_process.h"

namespace hptune::launch {
namespace {

// FNV-1a, 32 bits (Fowler, Noll, Vo): stable across builds and machines,
// unlike std::hash, so a later hptune process computes the same name.
uint32_t Fnv1a(std::string_view text) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

// <runs_dir>/<job>, from the replica's absolute log path
// <runs_dir>/<job>/<trial>/<replica>.log.
std::filesystem::path JobRunsDir(Env& env, const ReplicaLaunch& replica) {
  return std::filesystem::path(ReplicaMarker(env, replica))
      .parent_path()
      .parent_path();
}

// Podman's names take [a-zA-Z0-9_.-]; anything else becomes '_'.
std::string NamePart(std::string_view text) {
  std::string part(text);
  for (char& c : part) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' &&
        c != '.' && c != '-') {
      c = '_';
    }
  }
  return part;
}

// pythonPackageSpec: each package bound read-only under
// kContainerPackageDir, installed without the network, then the module run
// with the replica's argv ($0 is the module). A directory that is no pip
// project (no setup.py, no pyproject.toml) is imported where it is bound:
// kContainerPackageDir goes on PYTHONPATH, so a package directory of the
// source tree runs unbuilt (Vertex itself takes only built packages).
// The shell step for one bound package: a plain directory is imported
// (sets $imported), anything else is pip-installed offline; a failed
// install ends the replica with 125, podman's own "could not run".
std::string PackageStep(const std::string& inside) {
  const std::string quoted = absl::StrCat("'", inside, "'");
  return absl::StrCat(
      "if [ -d ", quoted, " ] && [ ! -f ", quoted, "/setup.py ] && [ ! -f ",
      quoted,
      "/pyproject.toml ]; then imported=1; else python3 -m pip install "
      "--quiet --no-index --no-deps --disable-pip-version-check ",
      quoted, " || exit 125; fi; ");
}

absl::Status AddPythonPackage(const ContainerSpec& spec,
                              std::vector<std::string>* argv) {
  std::set<std::string> names;
  std::string script;
  for (size_t i = 0; i < spec.package_uris.size(); ++i) {
    const std::filesystem::path path(spec.package_uris[i]);
    const std::string field = absl::StrCat("packageUris[", i, "]");
    const std::string name = path.filename().string();
    if (!path.is_absolute() || name.empty() ||
        name.find('\'') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": \"", path.string(),
          "\" must be an absolute path to a local package file (hptune reads "
          "no gs:// URIs)"));
    }
    if (!names.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": \"", path.string(), "\": another package has ",
                       "the file name ", name));
    }
    const std::string inside = absl::StrCat(kContainerPackageDir, "/", name);
    argv->push_back(
        absl::StrCat("--volume=", path.string(), ":", inside, ":ro"));
    absl::StrAppend(&script, PackageStep(inside));
  }
  if (!script.empty()) {
    absl::StrAppend(&script, "if [ -n \"$imported\" ]; then export PYTHONPATH=",
                    kContainerPackageDir, "${PYTHONPATH:+:$PYTHONPATH}; fi; ");
  }
  absl::StrAppend(&script, "exec python3 -m \"$0\" \"$@\"");
  argv->push_back(absl::StrCat(
      "--entrypoint=", nlohmann::json({"/bin/sh", "-c", script}).dump()));
  return absl::OkStatus();
}

void AddGpus(const ReplicaContainer& container, const PodmanOptions& options,
             std::vector<std::string>* argv) {
  if (container.gpus.empty()) return;
  for (int gpu : container.gpus) {
    argv->push_back(options.cdi_gpus
                        ? absl::StrCat("--device=nvidia.com/gpu=", gpu)
                        : absl::StrCat("--device=/dev/nvidia", gpu));
  }
  if (options.cdi_gpus) return;
  for (const std::string& device : options.control_devices) {
    argv->push_back(absl::StrCat("--device=", device));
  }
}

// Another user's replica under root's podman (root's image storage, no
// user namespace): the container's processes are the user's, with the
// user's groups (a GPU device's `video`), and can never gain more: no
// capability, and no set-user-ID program of the image takes effect.
void AddUser(const UserCredentials& user, std::vector<std::string>* argv) {
  argv->push_back(absl::StrCat("--user=", user.uid, ":", user.gid));
  for (gid_t group : user.groups) {
    if (group != user.gid) argv->push_back(absl::StrCat("--group-add=", group));
  }
  argv->push_back("--cap-drop=all");
  argv->push_back("--security-opt=no-new-privileges");
}

}  // namespace

std::string ContainerName(Env& env, const ReplicaLaunch& replica) {
  const std::filesystem::path trial_dir =
      std::filesystem::path(ReplicaMarker(env, replica)).parent_path();
  return absl::StrFormat("hptune-%s-%s-%s-%08x",
                         NamePart(trial_dir.parent_path().filename().string()),
                         NamePart(trial_dir.filename().string()),
                         ReplicaName(replica.type, replica.index),
                         Fnv1a(JobRunsDir(env, replica).string()));
}

std::filesystem::path ContainerEnvFile(Env& env, const ReplicaLaunch& replica) {
  const std::filesystem::path trial_dir =
      std::filesystem::path(ReplicaMarker(env, replica)).parent_path();
  return JobRunsDir(env, replica) /
         absl::StrCat(".", trial_dir.filename().string(), "-",
                      ReplicaName(replica.type, replica.index), ".env");
}

std::string ContainerJobLabel(const std::filesystem::path& job_runs_dir) {
  return absl::StrCat("hptune.runs=", job_runs_dir.string());
}

absl::StatusOr<std::vector<std::string>> PodmanRunArgv(
    Env& env, const ReplicaLaunch& replica, const PodmanOptions& options) {
  if (!replica.container.has_value() || replica.container->spec.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(DescribeReplica(replica), ": imageUri: no image to run"));
  }
  const ReplicaContainer& container = *replica.container;
  std::vector<std::string> argv = {
      options.podman, "run", "--rm", "--init", "--replace",
      // The image was checked (or pulled) before the job started; a trial
      // never waits on the network.
      "--pull=never", "--network=host",
      // The container's stdout and stderr are podman's: the replica's log.
      "--log-driver=passthrough",
      absl::StrCat("--name=", ContainerName(env, replica)),
      absl::StrCat("--label=", ContainerJobLabel(JobRunsDir(env, replica))),
      absl::StrFormat("--ulimit=nofile=%d:%d", options.nofile.soft,
                      options.nofile.hard),
      absl::StrFormat("--ulimit=nproc=%d:%d", options.nproc.soft,
                      options.nproc.hard)};
  if (options.split_cgroups) argv.push_back("--cgroups=split");
  if (replica.run_as.has_value()) {
    AddUser(*replica.run_as, &argv);
  }
  for (const std::filesystem::path& mount : container.mounts) {
    if (mount.string().find(':') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          DescribeReplica(replica), ": jobDir: \"", mount.string(),
          "\" holds ':', which podman's --volume reads as a separator"));
    }
    argv.push_back(
        absl::StrCat("--volume=", mount.string(), ":", mount.string()));
  }
  if (!container.gcs_root.empty()) {
    if (container.gcs_root.string().find(':') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          DescribeReplica(replica), ": --gcs-root \"",
          container.gcs_root.string(),
          "\" holds ':', which podman's --volume reads as a separator"));
    }
    argv.push_back(absl::StrCat("--volume=", container.gcs_root.string(), ":",
                                kGcsMountPoint));
  }
  AddGpus(container, options, &argv);
  if (replica.run_as.has_value()) {
    // Root's podman must not take another user's variables into its own
    // environment (LD_PRELOAD, CONTAINERS_CONF would be root's): they are
    // in a file of root's that only the container sees.
    argv.push_back(
        absl::StrCat("--env-file=", ContainerEnvFile(env, replica).string()));
  } else {
    // By name only: podman passes each from its own environment, which is
    // the replica's, so no value shows on a command line (`ps`), and a
    // backend that rewrites the environment (Slurm's node addresses)
    // reaches the container too.
    for (const auto& [name, value] : replica.env) {
      argv.push_back(absl::StrCat("--env=", name));
    }
  }
  // The marker is how a later hptune finds what is left.
  argv.push_back(absl::StrCat("--env=", kReplicaMarkerVariable));
  if (!container.spec.python_module.empty()) {
    absl::Status packages = AddPythonPackage(container.spec, &argv);
    if (!packages.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(DescribeReplica(replica),
                                                     ": pythonPackageSpec.",
                                                     packages.message()));
    }
  } else if (!container.spec.command.empty()) {
    argv.push_back(absl::StrCat("--entrypoint=",
                                nlohmann::json(container.spec.command).dump()));
  }
  argv.push_back(container.spec.image_uri);
  argv.insert(argv.end(), replica.argv.begin(), replica.argv.end());
  return argv;
}

}  // namespace hptune::launch
