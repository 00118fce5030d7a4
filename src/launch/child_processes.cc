#include "src/launch/child_processes.h"

#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <functional>
#include <set>
#include <thread>
#include <vector>

#include "hptune/core/mutex.h"
#include "src/launch/process_table.h"

namespace hptune::launch {
namespace {

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

  // Waits until a child is started or disowned, or `timeout` passed on
  // `env`'s clock.
  void WaitForChange(Env& env, std::chrono::milliseconds timeout) {
    const MonotonicTime deadline = env.MonotonicNow() + timeout;
    MutexLock lock(&mu_);
    const uint64_t seen = changes_;
    while (changes_ == seen) {
      if (!env.WaitUntil(&changed_, &mu_, deadline)) break;
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

// Sleeps in waitid until a child has ended (left waitable: WNOWAIT) and
// collects it when it is an orphan. An owned child that ended first is its
// starter's to collect: orphans behind it are found in /proc meanwhile.
[[noreturn]] void CollectForever(Env& env) {
  Children& children = TheChildren();
  std::chrono::milliseconds pause(1);
  for (;;) {
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) {
      // ECHILD: no child at all, so no descendant to be re-parented either
      // until a child is started.
      if (errno != EINTR) {
        children.WaitForChange(env, std::chrono::seconds(1));
      }
      continue;
    }
    if (info.si_pid > 0 && children.CollectIfOrphan(info.si_pid)) {
      pause = std::chrono::milliseconds(1);
      continue;
    }
    if (CollectOrphans(env) == 0) {
      children.WaitForChange(env, pause);
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

int CollectOrphans(Env& env) {
  int collected = 0;
  for (pid_t pid : ProcessTable(env).ZombieChildrenOf(env.ProcessId())) {
    if (TheChildren().CollectIfOrphan(pid)) ++collected;
  }
  return collected;
}

void StartOrphanCollector(Env& process_env) {
  static const bool started = [&process_env] {
    std::thread(CollectForever, std::ref(process_env)).detach();
    return true;
  }();
  (void)started;
}

}  // namespace hptune::launch
