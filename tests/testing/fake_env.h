// FakeEnv: an Env whose clock moves only when the code under test sleeps or
// waits, by exactly the time it asked for, and whose files live in memory.
// With FakeLauncher, a job runner then runs a job of simulated minutes in
// milliseconds, deterministically, without touching the disk.
//
// The file system is a map from normalised absolute path to contents, plus
// the set of directories; a write needs its directory, as on a real file
// system. Links and modes are not modelled: every file is a regular file of
// its own. Thread-safe: a test's thread may read files while a runner
// writes them.
#ifndef HPTUNE_TESTS_TESTING_FAKE_ENV_H_
#define HPTUNE_TESTS_TESTING_FAKE_ENV_H_

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
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
  void SleepFor(std::chrono::microseconds duration) override {
    clock_.Advance(duration);
  }
  // No descriptor of a fake run is ever readable: the whole timeout passes.
  void WaitForReadable(std::span<const int>,
                       std::chrono::microseconds timeout) override {
    clock_.Advance(timeout);
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
  absl::StatusOr<FileType> TypeOf(const std::filesystem::path& path) override;
  absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(
      const std::filesystem::path& dir) override;
  [[nodiscard]] absl::Status CreatePrivateDirectories(
      const std::filesystem::path& dir) override;
  // Modes are not modelled: OK when something is at `path`.
  [[nodiscard]] absl::Status SetPermissions(const std::filesystem::path& path,
                                            int mode) override;
  // This process's, unless a test sets `uid`.
  uint32_t EffectiveUserId() override { return uid; }
  uint32_t uid = ::geteuid();

  // Every file's path, sorted: what a test checks was left behind.
  std::vector<std::string> Files() const;

  // Called after each wait, on the waiting thread: a test's hook to act at
  // a simulated moment (set a cancel flag, free a GPU).
  std::function<void()> on_wait;

 private:
  FakeClock clock_;
  mutable Mutex mu_;
  std::map<std::string, std::string> files_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> dirs_ ABSL_GUARDED_BY(mu_) = {"/"};
};

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_FAKE_ENV_H_
