#include "src/launch/local/replica_process.h"

#include <dirent.h>
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
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "hptune/env/user_environment.h"
#include "hptune/env/users.h"
#include "src/launch/child_processes.h"
#include "src/launch/local/spawn_in_cgroup.h"

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
std::vector<std::string> ReplicaEnvironment(const ReplicaLaunch& replica) {
  std::map<std::string, std::string> env = replica.env;
  env[kReplicaMarkerVariable] = ReplicaMarker(replica);
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

// The process's state letter and process group from /proc/<pid>/stat, whose
// second field (the command name) may itself hold spaces and parentheses.
bool ReadStat(const char* pid, char* state, pid_t* pgrp) {
  int fd =
      open(absl::StrCat("/proc/", pid, "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[512];
  ssize_t n = read(fd, buffer, sizeof(buffer) - 1);
  close(fd);
  if (n <= 0) return false;
  std::string_view text(buffer, static_cast<size_t>(n));
  size_t close_paren = text.rfind(')');
  if (close_paren == std::string_view::npos) return false;
  std::istringstream rest(std::string(text.substr(close_paren + 1)));
  pid_t ppid = 0;
  return static_cast<bool>(rest >> *state >> ppid >> *pgrp);
}

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

}  // namespace

std::string DescribeReplica(const ReplicaLaunch& replica) {
  return absl::StrCat(std::string(ToString(replica.type)), " ", replica.index);
}

absl::StatusOr<pid_t> SpawnReplica(const ReplicaLaunch& replica,
                                   int cgroup_fd) {
  const std::string name = DescribeReplica(replica);
  if (replica.argv.empty() || replica.argv[0].empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": empty command line"));
  }
  const std::string& program = replica.argv[0];
  if (!replica.working_dir.empty() &&
      !std::filesystem::is_directory(replica.working_dir)) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": working directory \"",
                     replica.working_dir.string(), "\" is not a directory"));
  }
  if (replica.log_path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": no log path"));
  }
  HPTUNE_ASSIGN_OR_RETURN(const int log, OpenLog(replica, name));

  SpawnSetup setup;
  posix_spawn_file_actions_addopen(setup.actions(), 0, "/dev/null", O_RDONLY,
                                   0);
  posix_spawn_file_actions_adddup2(setup.actions(), log, 1);
  posix_spawn_file_actions_adddup2(setup.actions(), log, 2);
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
  std::vector<std::string> env_strings = ReplicaEnvironment(replica);
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
      pid = SpawnInCgroup({.program = found->c_str(),
                           .argv = argv.data(),
                           .envp = envp.data(),
                           .log_fd = log,
                           .working_dir = replica.working_dir.empty()
                                              ? nullptr
                                              : replica.working_dir.c_str(),
                           .user = ProcessUser(replica)},
                          cgroup_fd);
      rc = pid < 0 ? errno : 0;
    }
  } else {
    rc = posix_spawnp(&pid, program.c_str(), setup.actions(), setup.attr(),
                      argv.data(), envp.data());
  }
  close(log);
  if (rc != 0) return CannotStart(name, replica, rc);
  start.Own(pid);
  return pid;
}

bool GroupIsGone(pid_t pgid) { return kill(-pgid, 0) != 0 && errno == ESRCH; }

bool GroupHasLiveProcess(pid_t pgid) {
  if (GroupIsGone(pgid)) return false;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return true;  // Cannot tell: assume the worst.
  bool live = false;
  while (dirent* entry = readdir(proc)) {
    const char* name = entry->d_name;
    if (name[0] < '1' || name[0] > '9') continue;
    char state = 0;
    pid_t pgrp = 0;
    if (!ReadStat(name, &state, &pgrp)) continue;  // Ended meanwhile.
    if (pgrp == pgid && state != 'Z' && state != 'X') {
      live = true;
      break;
    }
  }
  closedir(proc);
  return live;
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
int OpenPidfd(pid_t pid) {
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

namespace {

// Whether /proc/<pid>/environ holds exactly `entry` ("NAME=value"). False
// when it cannot be read (ended, or another user's).
bool EnvironHas(pid_t pid, const std::string& entry, bool prefix = false) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ",
                   std::ios::binary);
  if (!in) return false;
  // A process that ends while it is read fails the read (ESRCH): streaming
  // the buffer makes that an empty text where istreambuf_iterator throws.
  std::stringstream contents;
  contents << in.rdbuf();
  const std::string environ_text = contents.str();
  size_t start = 0;
  while (start < environ_text.size()) {
    size_t end = environ_text.find('\0', start);
    if (end == std::string::npos) end = environ_text.size();
    const size_t length =
        prefix ? std::min(entry.size(), end - start) : end - start;
    if ((!prefix || end - start >= entry.size()) &&
        environ_text.compare(start, length, entry) == 0) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

void SignalPidfd(int pidfd, int signal) {
  syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0);
}

// Waits until the process behind `pidfd` has ended or `timeout` passed.
bool WaitForExit(int pidfd, std::chrono::milliseconds timeout) {
  pollfd fd{.fd = pidfd, .events = POLLIN, .revents = 0};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    int rc = poll(&fd, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) return false;
  }
}

}  // namespace

std::string ReplicaMarker(const ReplicaLaunch& replica) {
  std::error_code ec;
  std::filesystem::path path = std::filesystem::absolute(replica.log_path, ec);
  if (ec) path = replica.log_path;
  return path.lexically_normal().string();
}

namespace {

std::vector<pid_t> FindProcessesWith(const std::string& entry, bool prefix) {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  const pid_t self = getpid();
  while (dirent* dir = readdir(proc)) {
    const char* name = dir->d_name;
    if (name[0] < '1' || name[0] > '9') continue;
    char state = 0;
    pid_t pgrp = 0;
    if (!ReadStat(name, &state, &pgrp)) continue;
    if (state == 'Z' || state == 'X') continue;
    const pid_t pid = static_cast<pid_t>(std::strtol(name, nullptr, 10));
    if (pid == self) continue;
    if (EnvironHas(pid, entry, prefix)) found.push_back(pid);
  }
  closedir(proc);
  return found;
}

int StopProcessesWith(const std::string& entry, bool prefix,
                      std::chrono::milliseconds grace) {
  const pid_t own_group = getpgrp();
  struct Held {
    pid_t pid;
    int pidfd;
  };
  std::vector<Held> held;
  for (pid_t pid : FindProcessesWith(entry, prefix)) {
    int pidfd = OpenPidfd(pid);
    if (pidfd < 0) continue;  // Ended meanwhile.
    // The pidfd pins the process we opened; if the environment still has the
    // marker now, the pid was not reused between the scan and the open.
    if (!EnvironHas(pid, entry, prefix)) {
      close(pidfd);
      continue;
    }
    held.push_back({pid, pidfd});
  }
  auto signal_all = [&](int signal) {
    for (const Held& h : held) {
      SignalPidfd(h.pidfd, signal);
      const pid_t pgid = getpgid(h.pid);
      // The group's leader is the replica: what it started goes with it.
      if (pgid > 1 && pgid != own_group && EnvironHas(pgid, entry, prefix)) {
        SignalGroup(pgid, signal);
      }
    }
  };
  signal_all(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  bool all_gone = true;
  for (const Held& h : held) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!WaitForExit(h.pidfd, std::max(left, std::chrono::milliseconds(0)))) {
      all_gone = false;
    }
  }
  if (!all_gone) {
    signal_all(SIGKILL);
    for (const Held& h : held) WaitForExit(h.pidfd, std::chrono::seconds(5));
  }
  for (const Held& h : held) close(h.pidfd);
  return static_cast<int>(held.size());
}

std::string MarkerEntry(const std::string& marker) {
  return absl::StrCat(kReplicaMarkerVariable, "=", marker);
}

}  // namespace

std::vector<pid_t> FindMarkedProcesses(const std::string& marker) {
  return FindProcessesWith(MarkerEntry(marker), /*prefix=*/false);
}

int StopMarkedProcesses(const std::string& marker,
                        std::chrono::milliseconds grace) {
  return StopProcessesWith(MarkerEntry(marker), /*prefix=*/false, grace);
}

int StopMarkedProcessesUnder(const std::string& prefix,
                             std::chrono::milliseconds grace) {
  return StopProcessesWith(MarkerEntry(prefix), /*prefix=*/true, grace);
}

}  // namespace hptune::launch
