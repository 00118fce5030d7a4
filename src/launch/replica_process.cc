#include "src/launch/replica_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace hptune::launch {
namespace {

// This process's environment with `overrides` put over it, as "K=V" strings.
std::vector<std::string> MergedEnvironment(
    const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
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

}  // namespace

std::string DescribeReplica(const ReplicaLaunch& replica) {
  return absl::StrCat(std::string(ToString(replica.type)), " ", replica.index);
}

absl::StatusOr<pid_t> SpawnReplica(const ReplicaLaunch& replica) {
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
  std::error_code ignored;
  if (replica.log_path.has_parent_path()) {
    std::filesystem::create_directories(replica.log_path.parent_path(),
                                        ignored);
  }
  int log = open(replica.log_path.c_str(),
                 O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": cannot open log file \"",
                     replica.log_path.string(), "\": ", strerror(errno)));
  }

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
  std::vector<std::string> env_strings = MergedEnvironment(replica.env);
  std::vector<char*> envp = Pointers(env_strings);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, program.c_str(), setup.actions(), setup.attr(),
                        argv.data(), envp.data());
  close(log);
  if (rc != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": cannot start \"", program, "\": ", strerror(rc)));
  }
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

}  // namespace hptune::launch
