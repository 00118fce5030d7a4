#include "src/launch/local/container_replicas.h"

#include <sys/resource.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "hptune/env/users.h"
#include "src/launch/capture_output.h"
#include "src/launch/local/podman_argv.h"
#include "src/launch/local/replica_process.h"

namespace hptune::launch {
namespace {

// podman 4.3's own defaults (RLimitDefaultValue, and the RLIMIT_NPROC it
// starts conmon with): above them runc's setrlimit fails with EPERM.
constexpr uint64_t kPodmanNofile = 1048576;
constexpr uint64_t kPodmanNproc = 32768;

Rlimit OwnLimit(int resource, uint64_t cap) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0) return {1024, 1024};
  auto capped = [cap](rlim_t value) {
    return value == RLIM_INFINITY ? cap : std::min<uint64_t>(value, cap);
  };
  return {capped(limit.rlim_cur), capped(limit.rlim_max)};
}

// Whether something is at `path`, a link followed (a CDI spec may be one).
bool Exists(Env& env, const char* path) {
  return env.InfoOf(path, Links::kFollow).ok();
}

// How a config names a pool's image, for messages.
std::string ImageField(const JobSpec& job, TaskType type) {
  if (job.dialect != SpecDialect::kVertex) {
    return absl::StrCat(job.PoolConfigPath(type), ".imageUri");
  }
  // A Python package's image is its executor's.
  const bool package = !job.pool(type).container.python_module.empty();
  return absl::StrCat(job.PoolConfigPath(type),
                      package ? ".pythonPackageSpec.executorImageUri"
                              : ".containerSpec.imageUri");
}

std::string LastLine(const std::string& text) {
  std::vector<std::string> lines =
      absl::StrSplit(absl::StripTrailingAsciiWhitespace(text), '\n');
  return lines.empty() ? "" : lines.back();
}

absl::Status CheckImage(Env& env, const std::string& field,
                        const std::string& image, bool pull) {
  HPTUNE_ASSIGN_OR_RETURN(
      CapturedOutput exists,
      RunCapturingOutput(env, {"podman", "image", "exists", image}));
  if (exists.signal == 0 && exists.exit_code == 0) return absl::OkStatus();
  if (exists.signal != 0 || exists.exit_code != 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        field, ": podman cannot look up image \"", image,
        "\": ", LastLine(exists.err), " (see docs/operations.md, Containers)"));
  }
  if (!pull) {
    return absl::FailedPreconditionError(absl::StrCat(
        field, ": image \"", image,
        "\" is not in podman's local storage, and hptune pulls none unless "
        "asked: load it (podman load -i <file>.tar) or pull it (podman pull ",
        image, "), or run with --pull-images"));
  }
  HPTUNE_ASSIGN_OR_RETURN(
      CapturedOutput pulled,
      RunCapturingOutput(env, {"podman", "pull", "--quiet", image}));
  if (pulled.signal == 0 && pulled.exit_code == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      field, ": podman pull ", image, " failed: ", LastLine(pulled.err)));
}

}  // namespace

PodmanOptions MachinePodmanOptions(Env& env, bool split_cgroups) {
  PodmanOptions options{.split_cgroups = split_cgroups};
  options.nofile = OwnLimit(RLIMIT_NOFILE, kPodmanNofile);
  options.nproc = OwnLimit(RLIMIT_NPROC, kPodmanNproc);
  for (const char* spec :
       {"/etc/cdi/nvidia.yaml", "/etc/cdi/nvidia.json",
        "/var/run/cdi/nvidia.yaml", "/var/run/cdi/nvidia.json"}) {
    if (Exists(env, spec)) options.cdi_gpus = true;
  }
  for (const char* device : {"/dev/nvidiactl", "/dev/nvidia-uvm",
                             "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset"}) {
    if (Exists(env, device)) options.control_devices.push_back(device);
  }
  return options;
}

absl::Status CheckJobImages(Env& env, const JobSpec& job, bool pull) {
  for (TaskType type : kTaskTypes) {
    const TaskPool& pool = job.pool(type);
    if (!job.Runs(type) || pool.container.empty()) continue;
    const std::string field = ImageField(job, type);
    if (!FindOnPath("podman", /*search_working_dir=*/false).ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          field, ": \"", pool.container.image_uri,
          "\" runs in a container, and podman is not installed: install it "
          "(apt-get install podman runc catatonit; docs/operations.md, "
          "Containers)"));
    }
    HPTUNE_RETURN_IF_ERROR(
        CheckImage(env, field, pool.container.image_uri, pull));
  }
  return absl::OkStatus();
}

namespace {

// Another user's replica's variables, for root's podman's --env-file:
// written afresh by root in the job's directory, which is root's, mode
// 0600. podman's file holds one NAME=VALUE a line, so a value with a
// newline, which would cut it, is refused.
absl::Status WriteContainerEnvFile(Env& env, const ReplicaLaunch& replica) {
  std::string text;
  for (const auto& [name, value] : replica.env) {
    if (value.find('\n') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          DescribeReplica(replica), ": env: the value of ", name,
          " holds a newline, which a container of another user's job "
          "cannot be given"));
    }
    absl::StrAppend(&text, name, "=", value, "\n");
  }
  // Unsynced: a lost file is written again at the replica's next start.
  return env.WriteFileAtomically(ContainerEnvFile(env, replica), text, 0600,
                                 Durability::kUnsynced);
}

}  // namespace

absl::Status WrapContainerReplicas(const PodmanOptions& options, Env& env,
                                   TrialLaunch* launch) {
  for (ReplicaLaunch& replica : launch->replicas) {
    if (!replica.container.has_value()) continue;
    // A bind mount needs its source: a local <jobDir>/<N> that the trainer
    // would have made is made here, by the replica's user as the trainer
    // would, so a job's jobDir never makes root create anything (under
    // /etc, in another user's home) or follow a link for it.
    for (const std::filesystem::path& mount : replica.container->mounts) {
      std::optional<ScopedFileIdentity> as_user;
      if (replica.run_as) as_user.emplace(*replica.run_as);
      CreatePrivateDirectories(mount).IgnoreError();
    }
    HPTUNE_ASSIGN_OR_RETURN(replica.argv, PodmanRunArgv(env, replica, options));
    if (replica.run_as) {
      HPTUNE_RETURN_IF_ERROR(WriteContainerEnvFile(env, replica));
      // podman itself runs as root, in root's environment.
      replica.env.clear();
    }
  }
  return absl::OkStatus();
}

int RemoveLeftoverContainers(Env& env,
                             const std::filesystem::path& job_runs_dir) {
  if (!FindOnPath("podman", /*search_working_dir=*/false).ok()) return 0;
  const std::filesystem::path dir =
      env.Absolute(job_runs_dir).value_or(job_runs_dir).lexically_normal();
  absl::StatusOr<CapturedOutput> listed = RunCapturingOutput(
      env, {"podman", "ps", "--all", "--quiet", "--no-trunc",
            absl::StrCat("--filter=label=", ContainerJobLabel(dir))});
  if (!listed.ok() || listed->exit_code != 0) return 0;
  std::vector<std::string> ids = absl::StrSplit(
      listed->out, absl::ByAnyChar("\n "), absl::SkipWhitespace());
  RemoveContainers(env, ids);
  return static_cast<int>(ids.size());
}

void RemoveContainers(Env& env, const std::vector<std::string>& containers) {
  if (containers.empty()) return;
  if (!FindOnPath("podman", /*search_working_dir=*/false).ok()) return;
  std::vector<std::string> remove = {"podman", "rm", "--force", "--time=0",
                                     "--ignore"};
  remove.insert(remove.end(), containers.begin(), containers.end());
  // podman 4.3 refuses a container it still marks "stopping" after conmon
  // was killed ("container state improper: stopped"), and marks it stopped
  // in refusing: a second removal takes it.
  for (int attempt = 0; attempt < 3; ++attempt) {
    absl::StatusOr<CapturedOutput> removed = RunCapturingOutput(env, remove);
    if (!removed.ok() || (removed->signal == 0 && removed->exit_code == 0)) {
      return;
    }
  }
}

}  // namespace hptune::launch
