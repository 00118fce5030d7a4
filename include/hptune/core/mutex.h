// Mutex, MutexLock and CondVar: hptune's one kind of lock, a std::mutex that
// clang's thread-safety analysis can check. Every mutex in src/ and
// include/ is a Mutex (tests/layering_test.sh refuses a plain
// std::mutex there), every member it guards is marked ABSL_GUARDED_BY, and
// a private helper that expects it held ABSL_EXCLUSIVE_LOCKS_REQUIRED; the
// clang build with -Wthread-safety -Werror (`make check-thread-safety`,
// run by CI) fails on an access without the lock. g++ ignores the marks.
//
//   mutable Mutex mu_;
//   CondVar changed_;
//   int version_ ABSL_GUARDED_BY(mu_) = 0;
//   ...
//   MutexLock lock(&mu_);
//   while (version_ == seen) changed_.Wait(&mu_);
//
// Why not absl::Mutex: Debian builds Abseil without NDEBUG, so each of its
// locks also updates a global deadlock-detection graph unless the process
// turns that off (the server does: src/server/server.cc), which an embedder
// would have to know; std::mutex keeps hptune's locks as they were. Waits
// take no predicate: a lambda's body is analysed without the caller's
// locks, so a waiting loop reads the guarded state in the caller, checked.
//
// Thread-safety: Mutex and CondVar are for use from many threads; a
// MutexLock belongs to the thread that made it.
#ifndef HPTUNE_CORE_MUTEX_H_
#define HPTUNE_CORE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"

namespace hptune {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` from construction to the end of the scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A condition variable over a Mutex. Wakeups may be spurious: wait in a loop
// on the guarded state.
class CondVar {
 public:
  // Releases `mu` while waiting for a signal, and holds it again on return.
  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // Still held: the caller's MutexLock releases it.
  }
  // The same until `deadline` at the latest. False when the deadline has
  // passed, true when woken before it.
  bool WaitUntil(Mutex* mu, std::chrono::steady_clock::time_point deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool woken =
        cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return woken;
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace hptune

#endif  // HPTUNE_CORE_MUTEX_H_
