// EnvWrapper: an Env that hands every call to another Env, after leveldb's
// EnvWrapper. A test derives from it and overrides the one call it means
// to break (a rename failing with ENOSPC, a read returning EIO), so a real
// component runs on the real machine, or on FakeEnv, except where the fault
// is injected:
//
//   class FullDisk : public EnvWrapper {
//    public:
//     using EnvWrapper::EnvWrapper;
//     absl::Status Rename(const std::filesystem::path& from,
//                         const std::filesystem::path& to) override {
//       return absl::ErrnoToStatus(ENOSPC, "cannot rename");
//     }
//   };
//
// Used by tests; an embedder may use it to watch or limit what hptune does
// with files. Thread-safety: as the target's; the target must outlive the
// wrapper.
#ifndef HPTUNE_ENV_ENV_WRAPPER_H_
#define HPTUNE_ENV_ENV_WRAPPER_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"

namespace hptune {

class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env& target) : target_(target) {}

  Env& target() const { return target_; }

  Clock& clock() override { return target_.clock(); }
  MonotonicTime MonotonicNow() override { return target_.MonotonicNow(); }
  void SleepFor(std::chrono::microseconds duration) override {
    target_.SleepFor(duration);
  }
  void WaitForReadable(std::span<const int> fds,
                       std::chrono::microseconds timeout) override {
    target_.WaitForReadable(fds, timeout);
  }
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenForReading(
      const std::filesystem::path& path,
      std::string_view what = "file") override {
    return target_.OpenForReading(path, what);
  }
  absl::StatusOr<std::string> ReadFile(
      const std::filesystem::path& path) override {
    return target_.ReadFile(path);
  }
  absl::StatusOr<std::string> ReadFileHead(const std::filesystem::path& path,
                                           int64_t max_bytes) override {
    return target_.ReadFileHead(path, max_bytes);
  }
  [[nodiscard]] absl::Status WriteFileAtomically(
      const std::filesystem::path& path, std::string_view contents,
      int mode = 0600, Durability durability = Durability::kSynced) override {
    return target_.WriteFileAtomically(path, contents, mode, durability);
  }
  [[nodiscard]] absl::Status CreateFileAtomically(
      const std::filesystem::path& path, std::string_view contents,
      int mode = 0600) override {
    return target_.CreateFileAtomically(path, contents, mode);
  }
  [[nodiscard]] absl::Status Rename(const std::filesystem::path& from,
                                    const std::filesystem::path& to) override {
    return target_.Rename(from, to);
  }
  absl::StatusOr<bool> Remove(const std::filesystem::path& path) override {
    return target_.Remove(path);
  }
  absl::StatusOr<FileInfo> InfoOf(const std::filesystem::path& path,
                                  Links links) override {
    return target_.InfoOf(path, links);
  }
  absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(
      const std::filesystem::path& dir) override {
    return target_.ListDirectory(dir);
  }
  [[nodiscard]] absl::Status CreatePrivateDirectories(
      const std::filesystem::path& dir) override {
    return target_.CreatePrivateDirectories(dir);
  }
  absl::StatusOr<std::filesystem::path> WorkingDirectory() override {
    return target_.WorkingDirectory();
  }
  [[nodiscard]] absl::Status SetPermissions(const std::filesystem::path& path,
                                            int mode) override {
    return target_.SetPermissions(path, mode);
  }
  uint32_t EffectiveUserId() override { return target_.EffectiveUserId(); }
  uint32_t EffectiveGroupId() override { return target_.EffectiveGroupId(); }
  uint64_t RandomSeed() override { return target_.RandomSeed(); }
  absl::StatusOr<LogCut> CapLog(const std::filesystem::path& path,
                                int64_t max_bytes) override {
    return target_.CapLog(path, max_bytes);
  }
  absl::StatusOr<std::unique_ptr<AppendFile>> OpenForAppending(
      const std::filesystem::path& path, int mode = 0600) override {
    return target_.OpenForAppending(path, mode);
  }

  // Descriptors.
  absl::StatusOr<std::vector<int>> PollReadable(
      std::span<const int> fds,
      std::optional<std::chrono::microseconds> timeout) override {
    return target_.PollReadable(fds, timeout);
  }
  absl::StatusOr<size_t> ReadSome(int fd, std::span<char> buffer) override {
    return target_.ReadSome(fd, buffer);
  }
  [[nodiscard]] absl::Status Write(int fd, std::string_view data) override {
    return target_.Write(fd, data);
  }

  // Locks, waits on a condition, resolved paths.
  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(
      const std::filesystem::path& path, LockMode mode,
      LockFileUse use) override {
    return target_.LockFile(path, mode, use);
  }
  bool WaitUntil(CondVar* cv, Mutex* mu, MonotonicTime deadline) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return target_.WaitUntil(cv, mu, deadline);
  }
  absl::StatusOr<std::filesystem::path> RealPath(
      const std::filesystem::path& path) override {
    return target_.RealPath(path);
  }
  // Directory handles and the process id.
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenDirectory(
      const std::filesystem::path& path) override {
    return target_.OpenDirectory(path);
  }
  int ProcessId() override { return target_.ProcessId(); }

 private:
  Env& target_;
};

}  // namespace hptune

#endif  // HPTUNE_ENV_ENV_WRAPPER_H_
