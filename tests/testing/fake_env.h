// FakeEnv: an Env whose clocks move only when the code under test sleeps or
// waits, by exactly the time it asked for, whose files live in memory and
// whose seeds are a fixed sequence.
// With FakeLauncher, a job runner then runs a job of simulated minutes in
// milliseconds, deterministically, without touching the disk.
//
// The file system is a map from normalised absolute path to contents, plus
// the set of directories; a write needs its directory, as on a real file
// system. Links are not modelled: every file is a regular file of its own,
// owned by `uid` (unless SetOwner says otherwise), with the mode it was written
// or set with. The wall clock (fake_clock()) and the monotonic one move
// together when time passes (a wait, a sleep, Advance); a test moves the wall
// clock alone (fake_clock().Advance) to set it back or forth, which no deadline
// may notice. Thread-safe: a test's thread may read files while a runner writes
// them.
#ifndef HPTUNE_TESTS_TESTING_FAKE_ENV_H_
#define HPTUNE_TESTS_TESTING_FAKE_ENV_H_

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"

namespace hptune::testing {

class FakeEnv : public Env {
 public:
  explicit FakeEnv(Timestamp start = FromUnixMicros(1'700'000'000'000'000))
      : clock_(start) {}

  FakeClock& fake_clock() { return clock_; }
  Clock& clock() override { return clock_; }
  // Starts at an arbitrary point, as a real monotonic clock does.
  MonotonicTime MonotonicNow() override {
    return MonotonicTime(std::chrono::microseconds(monotonic_micros_.load()));
  }
  // Time passes: both clocks move by `duration`, and the waits on a
  // condition whose deadline that reaches end (WaitUntil).
  void Advance(std::chrono::microseconds duration);
  void SleepFor(std::chrono::microseconds duration) override {
    Advance(duration);
  }
  // No descriptor of a fake run is ever readable: the whole timeout passes.
  void WaitForReadable(std::span<const int>,
                       std::chrono::microseconds timeout) override {
    Advance(timeout);
    if (on_wait) on_wait();
  }

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenForReading(
      const std::filesystem::path& path,
      std::string_view what = "file") override;
  absl::StatusOr<std::string> ReadFile(
      const std::filesystem::path& path) override;
  [[nodiscard]] absl::Status WriteFileAtomically(
      const std::filesystem::path& path, std::string_view contents,
      int mode = 0600, Durability durability = Durability::kSynced) override;
  [[nodiscard]] absl::Status Rename(const std::filesystem::path& from,
                                    const std::filesystem::path& to) override;
  absl::StatusOr<bool> Remove(const std::filesystem::path& path) override;
  [[nodiscard]] absl::Status CreateFileAtomically(
      const std::filesystem::path& path, std::string_view contents,
      int mode = 0600) override;
  // Directories have mode 0700; `links` changes nothing.
  absl::StatusOr<FileInfo> InfoOf(const std::filesystem::path& path,
                                  Links links) override;
  absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(
      const std::filesystem::path& dir) override;
  [[nodiscard]] absl::Status CreatePrivateDirectories(
      const std::filesystem::path& dir) override;
  // `working_directory`, which a test may set.
  absl::StatusOr<std::filesystem::path> WorkingDirectory() override {
    return working_directory;
  }
  std::filesystem::path working_directory = "/";
  // A directory's mode stays 0700.
  [[nodiscard]] absl::Status SetPermissions(const std::filesystem::path& path,
                                            int mode) override;
  // This process's, unless a test sets `uid` or `gid`.
  uint32_t EffectiveUserId() override { return uid; }
  uint32_t EffectiveGroupId() override { return gid; }
  uint32_t uid = ::geteuid();
  uint32_t gid = ::getegid();
  // The same sequence in every FakeEnv (splitmix64 of a count), so a test
  // of what is seeded is reproducible.
  uint64_t RandomSeed() override;
  // Made as a write makes a file (its directory must exist; NotFound
  // otherwise), with `mode`; each Append adds to its contents, which
  // ReadFile then returns. A directory there: FailedPrecondition.
  absl::StatusOr<std::unique_ptr<AppendFile>> OpenForAppending(
      const std::filesystem::path& path, int mode = 0600) override;

  // Descriptors are the machine's (a test's sockets and pipes): polled,
  // read and written as DefaultEnv does, in real time.
  absl::StatusOr<std::vector<int>> PollReadable(
      std::span<const int> fds,
      std::optional<std::chrono::microseconds> timeout) override {
    return DefaultEnv().PollReadable(fds, timeout);
  }
  absl::StatusOr<size_t> ReadSome(int fd, std::span<char> buffer) override {
    return DefaultEnv().ReadSome(fd, buffer);
  }
  [[nodiscard]] absl::Status Write(int fd, std::string_view data) override {
    return DefaultEnv().Write(fd, data);
  }

  // Locks, waits on a condition, resolved paths.
  //
  // A lock table in memory: the locks of one FakeEnv conflict as flocks
  // do, with the messages PosixEnv gives. The lock file is made as a write
  // makes one (its directory must exist); kHolderPid writes `pid` into it
  // and removes it on release. The FakeEnv must outlive its locks.
  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(
      const std::filesystem::path& path, LockMode mode,
      LockFileUse use) override;
  int pid = ::getpid();
  // Waits for a signal in real time, 5 ms at most: one that no signal
  // ends moves both clocks by what it waited (to the deadline at most).
  // False once the monotonic clock is at `deadline`, true before (a
  // signal, or a spurious return the caller's loop waits again after).
  // So a wait nobody ends lasts about as long as on the real machine (the
  // threads that would signal it are real), and another thread's sleep or
  // wait, or a test's Advance, that moves the clock to its deadline ends
  // it at once.
  bool WaitUntil(CondVar* cv, Mutex* mu, MonotonicTime deadline) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Links are not modelled: the normalised absolute path, when a file or
  // directory is there; NotFound otherwise.
  absl::StatusOr<std::filesystem::path> RealPath(
      const std::filesystem::path& path) override;
  // Directory handles (tests/testing/fake_directory.h) and the process id,
  // this process's unless a test sets `pid`.
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenDirectory(
      const std::filesystem::path& path) override;
  int ProcessId() override { return pid; }
  // Makes the file or directory at `path` another user's, as InfoOf and a
  // handle then report it (every name is `uid`'s until then); the owner
  // stays with the name, through writes and a rename, until it is removed.
  void SetOwner(const std::filesystem::path& path, uint32_t owner);

  // Every file's path, sorted: what a test checks was left behind.
  std::vector<std::string> Files() const;

  // Called after each wait, on the waiting thread: a test's hook to act at
  // a simulated moment (set a cancel flag, free a GPU).
  std::function<void()> on_wait;

 private:
  FakeClock clock_;
  std::atomic<int64_t> monotonic_micros_{1'000'000'000};
  std::atomic<uint64_t> seeds_drawn_{0};
  mutable Mutex mu_;
  std::map<std::string, std::string> files_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> modes_ ABSL_GUARDED_BY(mu_);  // Of files_.
  // Names SetOwner gave another user.
  std::map<std::string, uint32_t> owners_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> dirs_ ABSL_GUARDED_BY(mu_) = {"/"};

  // The lock table: who holds each lock file.
  struct LockHolders {
    int shared = 0;
    bool exclusive = false;
  };
  class FakeFileLock;
  class FakeAppendFile;
  void Unlock(const std::string& key, LockMode mode, LockFileUse use);
  std::map<std::string, LockHolders> locks_ ABSL_GUARDED_BY(mu_);

  // The waits on a condition in progress, which Advance ends when due.
  struct Waiter {
    CondVar* cv;
    MonotonicTime deadline;
  };
  Mutex waiters_mu_;
  std::vector<Waiter*> waiters_ ABSL_GUARDED_BY(waiters_mu_);
};

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_FAKE_ENV_H_
