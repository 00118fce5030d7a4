#include "src/launch/child_processes.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "hptune/core/mutex.h"

namespace hptune::launch {
namespace {

using Clock = std::chrono::steady_clock;

class Children {
 public:
  void BeginStart() {
    MutexLock lock(&mu_);
    ++starting_;
  }
  void EndStart() {
    {
      MutexLock lock(&mu_);
      --starting_;
      ++changes_;
    }
    changed_.SignalAll();
  }
  void Own(pid_t pid) {
    MutexLock lock(&mu_);
    owned_.insert(pid);
  }
  void Disown(pid_t pid) {
    {
      MutexLock lock(&mu_);
      owned_.erase(pid);
      ++changes_;
    }
    changed_.SignalAll();
  }

  // Collects `pid`, an ended child, unless a starter owns it. True when it
  // is gone (collected here or by someone else meanwhile).
  bool CollectIfOrphan(pid_t pid) {
    MutexLock lock(&mu_);
    while (starting_ > 0) changed_.Wait(&mu_);
    if (owned_.contains(pid)) return false;
    int status = 0;
    pid_t got;
    do {
      got = waitpid(pid, &status, WNOHANG);
    } while (got < 0 && errno == EINTR);
    return got == pid || (got < 0 && errno == ECHILD);
  }

  // Waits until a child is started or disowned, or `timeout` passed.
  void WaitForChange(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    MutexLock lock(&mu_);
    const uint64_t seen = changes_;
    while (changes_ == seen) {
      if (!changed_.WaitUntil(&mu_, deadline)) break;
    }
  }

 private:
  Mutex mu_;
  CondVar changed_;
  int starting_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t changes_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<pid_t> owned_ ABSL_GUARDED_BY(mu_);
};

// Never destroyed: the collector's thread uses it until the process exits.
Children& TheChildren() {
  static Children* const children = new Children;
  return *children;
}

// Whether /proc/<name>/stat shows a zombie whose parent is `parent`.
bool IsZombieChildOf(const char* name, pid_t parent) {
  // Room for any directory entry's name (NAME_MAX), so nothing is cut.
  char path[sizeof("/proc/") + NAME_MAX + sizeof("/stat")];
  std::snprintf(path, sizeof(path), "/proc/%s/stat", name);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[512];
  const ssize_t n = read(fd, text, sizeof(text) - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  // "pid (comm) S ppid ...": comm may hold spaces and parentheses.
  const char* end = std::strrchr(text, ')');
  if (end == nullptr || end[1] != ' ') return false;
  char state = 0;
  int ppid = 0;
  if (std::sscanf(end + 2, "%c %d", &state, &ppid) != 2) return false;
  return state == 'Z' && ppid == parent;
}

std::vector<pid_t> ZombieChildren() {
  std::vector<pid_t> zombies;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return zombies;
  const pid_t self = getpid();
  while (const dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    if (IsZombieChildOf(entry->d_name, self)) {
      zombies.push_back(static_cast<pid_t>(std::atoi(entry->d_name)));
    }
  }
  closedir(proc);
  return zombies;
}

// Sleeps in waitid until a child has ended (left waitable: WNOWAIT) and
// collects it when it is an orphan. An owned child that ended first is its
// starter's to collect: orphans behind it are found in /proc meanwhile.
[[noreturn]] void CollectForever() {
  Children& children = TheChildren();
  std::chrono::milliseconds pause(1);
  for (;;) {
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) {
      // ECHILD: no child at all, so no descendant to be re-parented either
      // until a child is started.
      if (errno != EINTR) children.WaitForChange(std::chrono::seconds(1));
      continue;
    }
    if (info.si_pid > 0 && children.CollectIfOrphan(info.si_pid)) {
      pause = std::chrono::milliseconds(1);
      continue;
    }
    if (CollectOrphans() == 0) {
      children.WaitForChange(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(100));
    }
  }
}

}  // namespace

ChildStart::ChildStart() { TheChildren().BeginStart(); }

ChildStart::~ChildStart() { TheChildren().EndStart(); }

void ChildStart::Own(pid_t pid) {
  if (pid > 0) TheChildren().Own(pid);
}

void Disown(pid_t pid) {
  if (pid > 0) TheChildren().Disown(pid);
}

int CollectOrphans() {
  int collected = 0;
  for (pid_t pid : ZombieChildren()) {
    if (TheChildren().CollectIfOrphan(pid)) ++collected;
  }
  return collected;
}

void StartOrphanCollector() {
  static const bool started = [] {
    std::thread(CollectForever).detach();
    return true;
  }();
  (void)started;
}

}  // namespace hptune::launch
