#include "src/launch/local/replica_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "hptune/env/user_environment.h"
#include "hptune/env/users.h"
#include "src/env/scoped_fd.h"
#include "src/launch/child_processes.h"
#include "src/launch/local/spawn_in_cgroup.h"
#include "src/launch/local/trial_cgroup.h"
#include "src/launch/process_table.h"

extern char** environ;

namespace hptune::launch {
namespace {

// This process's environment with `overrides` put over it, as "K=V" strings.
// For another user's replica, the variables naming this process's user's
// own places are left out.
std::vector<std::string> MergedEnvironment(
    const std::map<std::string, std::string>& overrides, bool other_user) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    if (other_user && IsServerUsersPlace(text.substr(0, equals))) continue;
    merged.emplace(std::string(text.substr(0, equals)),
                   std::string(text.substr(equals + 1)));
  }
  for (const auto& [name, value] : overrides) merged[name] = value;
  std::vector<std::string> result;
  result.reserve(merged.size());
  for (const auto& [name, value] : merged) {
    result.push_back(absl::StrCat(name, "=", value));
  }
  return result;
}

// Whom the replica's process runs as: another user's host replica as that
// user; a container replica's podman as this process's user (root), the
// user being only inside the container (podman_argv.h).
const UserCredentials* ProcessUser(const ReplicaLaunch& replica) {
  if (!replica.run_as || replica.container) return nullptr;
  return &*replica.run_as;
}

// The replica's whole environment: this process's, the replica's own
// variables over it with its marker, and for another user's replica that
// user's identity under the replica's variables (which a config may set).
std::vector<std::string> ReplicaEnvironment(Env& machine,
                                            const ReplicaLaunch& replica) {
  std::map<std::string, std::string> env = replica.env;
  env[kReplicaMarkerVariable] = ReplicaMarker(machine, replica);
  const UserCredentials* user = ProcessUser(replica);
  if (user) env.merge(UserEnvironment(user->uid, replica.working_dir));
  return MergedEnvironment(env, user != nullptr);
}

std::vector<char*> Pointers(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const std::string& s : strings) {
    pointers.push_back(const_cast<char*>(s.c_str()));
  }
  pointers.push_back(nullptr);
  return pointers;
}

// Owns the posix_spawn attribute and file-action objects.
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawnattr_init(&attr_);
    posix_spawn_file_actions_init(&actions_);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions_);
    posix_spawnattr_destroy(&attr_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  posix_spawnattr_t* attr() { return &attr_; }
  posix_spawn_file_actions_t* actions() { return &actions_; }

 private:
  posix_spawnattr_t attr_;
  posix_spawn_file_actions_t actions_;
};

// Why exec failed, said so that the fix is plain: a missing #! interpreter
// is not "No such file or directory" of the script. NotFound and
// PermissionDenied mean no retry can succeed (Launcher::Start).
absl::Status CannotStart(const std::string& name, const ReplicaLaunch& replica,
                         int error) {
  const std::string& program = replica.argv[0];
  const absl::Status diagnosis = CheckExecutable(program, replica.working_dir);
  const std::string prefix =
      absl::StrCat(name, ": cannot start \"", program, "\": ");
  if (!diagnosis.ok()) {
    return absl::Status(diagnosis.code(),
                        absl::StrCat(prefix, diagnosis.message()));
  }
  std::string message = absl::StrCat(prefix, strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case ENOEXEC:
    case EISDIR:
    case E2BIG:
    case ELOOP:
      return absl::PermissionDeniedError(message);
    default:
      return absl::FailedPreconditionError(message);
  }
}

// The replica's log, opened for appending (its directory made first). The
// log is its owner's alone: a trainer may print what others should not
// read. A link, FIFO or hard link planted in its place is refused, and a
// replica run as another user has its log opened and made with that user's
// rights, so a name the user controls never makes this process write where
// the user could not, nor wait.
// Errors start with `name`, the replica's.
absl::StatusOr<int> OpenLog(const ReplicaLaunch& replica,
                            const std::string& name) {
  std::optional<ScopedFileIdentity> as_user;
  if (replica.run_as) as_user.emplace(*replica.run_as);
  if (replica.log_path.has_parent_path()) {
    // A failure shows as the log file that cannot be opened.
    CreatePrivateDirectories(replica.log_path.parent_path()).IgnoreError();
  }
  absl::StatusOr<int> log = OpenRegularFile(
      replica.log_path, O_WRONLY | O_CREAT | O_APPEND, "log file", 0600);
  if (!log.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": ", log.status().message()));
  }
  return log;
}

// Whether `dir` is a directory, a link followed.
bool IsDirectory(Env& env, const std::filesystem::path& dir) {
  const absl::StatusOr<FileInfo> info = env.InfoOf(dir, Links::kFollow);
  return info.ok() && info->type == FileType::kDirectory;
}

}  // namespace

std::string DescribeReplica(const ReplicaLaunch& replica) {
  return absl::StrCat(std::string(ToString(replica.type)), " ", replica.index);
}

absl::StatusOr<pid_t> SpawnReplica(Env& env, const ReplicaLaunch& replica,
                                   int cgroup_fd) {
  const std::string name = DescribeReplica(replica);
  if (replica.argv.empty() || replica.argv[0].empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": empty command line"));
  }
  const std::string& program = replica.argv[0];
  if (!replica.working_dir.empty() && !IsDirectory(env, replica.working_dir)) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": working directory \"",
                     replica.working_dir.string(), "\" is not a directory"));
  }
  if (replica.log_path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": no log path"));
  }
  HPTUNE_ASSIGN_OR_RETURN(const int opened_log, OpenLog(replica, name));
  ScopedFd log(opened_log);

  SpawnSetup setup;
  posix_spawn_file_actions_addopen(setup.actions(), 0, "/dev/null", O_RDONLY,
                                   0);
  posix_spawn_file_actions_adddup2(setup.actions(), log.get(), 1);
  posix_spawn_file_actions_adddup2(setup.actions(), log.get(), 2);
  // Descriptors another thread opened without O_CLOEXEC must not leak into
  // a trainer that may run for days.
  posix_spawn_file_actions_addclosefrom_np(setup.actions(), 3);
  if (!replica.working_dir.empty()) {
    posix_spawn_file_actions_addchdir_np(setup.actions(),
                                         replica.working_dir.c_str());
  }
  // A signal this process ignores or blocks (SIGPIPE under a gRPC server)
  // would stay ignored in the trainer across exec.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(setup.attr(), &all);
  posix_spawnattr_setsigmask(setup.attr(), &none);
  posix_spawnattr_setpgroup(setup.attr(), 0);
  posix_spawnattr_setflags(setup.attr(), POSIX_SPAWN_SETPGROUP |
                                             POSIX_SPAWN_SETSIGDEF |
                                             POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> argv = Pointers(replica.argv);
  std::vector<std::string> env_strings = ReplicaEnvironment(env, replica);
  std::vector<char*> envp = Pointers(env_strings);
  pid_t pid = -1;
  int rc = 0;
  // The caller collects the replica; Disown when it has.
  ChildStart start;
  if (cgroup_fd >= 0 || ProcessUser(replica)) {
    // posix_spawnp's lookup, which the cgroup spawn does not have.
    const absl::StatusOr<std::string> found = FindOnPath(program);
    if (!found.ok()) {
      rc = absl::IsPermissionDenied(found.status()) ? EACCES : ENOENT;
    } else {
      pid = SpawnInCgroup(
          {.program = found->c_str(),
           .argv = argv.data(),
           .envp = envp.data(),
           .log_fd = log.get(),
           .working_dir = replica.working_dir.empty()
                              ? nullptr
                              : replica.working_dir.c_str(),
           .user = ProcessUser(replica),
           .enter_cgroups = DetectCgroupSupport().v1_replica_procs},
          cgroup_fd);
      rc = pid < 0 ? errno : 0;
    }
  } else {
    rc = posix_spawnp(&pid, program.c_str(), setup.actions(), setup.attr(),
                      argv.data(), envp.data());
  }
  log.Reset();
  if (rc != 0) return CannotStart(name, replica, rc);
  start.Own(pid);
  return pid;
}

bool GroupIsGone(pid_t pgid) { return kill(-pgid, 0) != 0 && errno == ESRCH; }

bool GroupHasLiveProcess(Env& env, pid_t pgid) {
  if (GroupIsGone(pgid)) return false;
  return ProcessTable(env).GroupHasLiveProcess(pgid);
}

void SignalGroup(pid_t pgid, int signal) {
  if (pgid > 1) kill(-pgid, signal);
}

std::vector<std::pair<pid_t, int>> ReapGroup(pid_t pgid) {
  std::vector<std::pair<pid_t, int>> reaped;
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-pgid, &status, WNOHANG);
    if (pid > 0) {
      reaped.emplace_back(pid, status);
    } else if (pid < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // 0: none has ended yet; ECHILD: none is ours.
    }
  }
  return reaped;
}

// glibc 2.36's <sys/pidfd.h> lacks C linkage under C++: call the kernel.
ScopedFd OpenPidfd(pid_t pid) {
  return ScopedFd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
}

namespace {

void SignalPidfd(int pidfd, int signal) {
  syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0);
}

// Whether the process behind `pidfd` has ended: its pidfd is readable. A
// question only the kernel answers (a zero-timeout poll), also for a
// process that is not this one's child.
bool HasEnded(int pidfd) {
  pollfd fd{.fd = pidfd, .events = POLLIN, .revents = 0};
  return poll(&fd, 1, 0) > 0;
}

// Waits through `env` until the process behind `pidfd` has ended or
// `deadline` passed.
bool WaitForExit(Env& env, int pidfd, MonotonicTime deadline) {
  for (;;) {
    if (HasEnded(pidfd)) return true;
    const MonotonicTime now = env.MonotonicNow();
    if (now >= deadline) return false;
    env.WaitForReadable(
        std::span<const int>(&pidfd, 1),
        std::chrono::duration_cast<std::chrono::microseconds>(deadline - now));
  }
}

}  // namespace

std::string ReplicaMarker(Env& env, const ReplicaLaunch& replica) {
  const std::filesystem::path path =
      env.Absolute(replica.log_path).value_or(replica.log_path);
  return path.lexically_normal().string();
}

namespace {

int StopProcessesWith(Env& env, const std::string& entry, EntryMatch match,
                      std::chrono::milliseconds grace) {
  const ProcessTable table(env);
  const pid_t own_group = getpgrp();
  struct Held {
    pid_t pid;
    ScopedFd pidfd;
  };
  std::vector<Held> held;
  for (pid_t pid : table.LiveProcessesWith(entry, match, env.ProcessId())) {
    ScopedFd pidfd = OpenPidfd(pid);
    if (!pidfd.valid()) continue;  // Ended meanwhile.
    // The pidfd pins the process we opened; if the environment still has the
    // marker now, the pid was not reused between the scan and the open.
    if (!table.EnvironmentHas(pid, entry, match)) continue;
    held.push_back({pid, std::move(pidfd)});
  }
  auto signal_all = [&](int signal) {
    for (const Held& h : held) {
      SignalPidfd(h.pidfd.get(), signal);
      const pid_t pgid = getpgid(h.pid);
      // The group's leader is the replica: what it started goes with it.
      if (pgid > 1 && pgid != own_group &&
          table.EnvironmentHas(pgid, entry, match)) {
        SignalGroup(pgid, signal);
      }
    }
  };
  signal_all(SIGTERM);
  const MonotonicTime deadline = env.MonotonicNow() + grace;
  bool all_gone = true;
  for (const Held& h : held) {
    if (!WaitForExit(env, h.pidfd.get(), deadline)) all_gone = false;
  }
  if (!all_gone) {
    signal_all(SIGKILL);
    for (const Held& h : held) {
      WaitForExit(env, h.pidfd.get(),
                  env.MonotonicNow() + std::chrono::seconds(5));
    }
  }
  return static_cast<int>(held.size());
}

std::string MarkerEntry(const std::string& marker) {
  return absl::StrCat(kReplicaMarkerVariable, "=", marker);
}

}  // namespace

std::vector<pid_t> FindMarkedProcesses(Env& env, const std::string& marker) {
  return ProcessTable(env).LiveProcessesWith(
      MarkerEntry(marker), EntryMatch::kWhole, env.ProcessId());
}

int StopMarkedProcesses(Env& env, const std::string& marker,
                        std::chrono::milliseconds grace) {
  return StopProcessesWith(env, MarkerEntry(marker), EntryMatch::kWhole, grace);
}

int StopMarkedProcessesUnder(Env& env, const std::string& prefix,
                             std::chrono::milliseconds grace) {
  return StopProcessesWith(env, MarkerEntry(prefix), EntryMatch::kPrefix,
                           grace);
}

}  // namespace hptune::launch
