// FakeEnv's lock table, its waits on a condition and the clock's advance
// that ends them (fake_env.h).
#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tests/testing/fake_env.h"

namespace hptune::testing {
namespace {

std::string LockKey(const std::filesystem::path& path) {
  std::string key = ("/" / path).lexically_normal().string();
  while (key.size() > 1 && key.back() == '/') key.pop_back();
  return key;
}

// The longest real wait of one WaitUntil: an Advance that signals just
// before the waiter sleeps is missed for no longer.
constexpr std::chrono::microseconds kClockCheck{5'000};

}  // namespace

class FakeEnv::FakeFileLock : public FileLock {
 public:
  FakeFileLock(FakeEnv& env, std::string key, LockMode mode, LockFileUse use)
      : env_(env), key_(std::move(key)), mode_(mode), use_(use) {}
  ~FakeFileLock() override { env_.Unlock(key_, mode_, use_); }

 private:
  FakeEnv& env_;
  const std::string key_;
  const LockMode mode_;
  const LockFileUse use_;
};

absl::StatusOr<std::unique_ptr<FileLock>> FakeEnv::LockFile(
    const std::filesystem::path& path, LockMode mode, LockFileUse use) {
  const std::string key = LockKey(path);
  MutexLock lock(&mu_);
  if (!dirs_.contains(std::filesystem::path(key).parent_path().string()) ||
      dirs_.contains(key)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create lock file \"", key, "\": No such file or directory"));
  }
  LockHolders& holders = locks_[key];
  const bool free = mode == LockMode::kShared
                        ? !holders.exclusive
                        : !holders.exclusive && holders.shared == 0;
  if (!free) {
    return absl::UnavailableError(
        absl::StrCat("lock file \"", key, "\" is held by another holder"));
  }
  if (mode == LockMode::kShared) {
    ++holders.shared;
  } else {
    holders.exclusive = true;
  }
  std::string& contents = files_[key];
  modes_.try_emplace(key, 0600);
  if (use == LockFileUse::kHolderPid) contents = std::to_string(pid);
  return std::make_unique<FakeFileLock>(*this, key, mode, use);
}

void FakeEnv::Unlock(const std::string& key, LockMode mode, LockFileUse use) {
  MutexLock lock(&mu_);
  LockHolders& holders = locks_[key];
  if (mode == LockMode::kShared) {
    --holders.shared;
  } else {
    holders.exclusive = false;
  }
  if (use == LockFileUse::kHolderPid) {
    files_.erase(key);
    modes_.erase(key);
  }
}

void FakeEnv::Advance(std::chrono::microseconds duration) {
  clock_.Advance(duration);
  monotonic_micros_ += duration.count();
  const MonotonicTime now = MonotonicNow();
  MutexLock lock(&waiters_mu_);
  for (Waiter* waiter : waiters_) {
    if (waiter->deadline <= now) waiter->cv->SignalAll();
  }
}

bool FakeEnv::WaitUntil(CondVar* cv, Mutex* mu, MonotonicTime deadline) {
  if (MonotonicNow() >= deadline) return false;
  Waiter waiter{.cv = cv, .deadline = deadline};
  {
    MutexLock lock(&waiters_mu_);
    waiters_.push_back(&waiter);
  }
  const auto left = [&] {
    return std::chrono::ceil<std::chrono::microseconds>(deadline -
                                                        MonotonicNow());
  };
  const std::chrono::microseconds slice =
      std::min<std::chrono::microseconds>(left(), kClockCheck);
  if (!cv->WaitUntil(mu, std::chrono::steady_clock::now() + slice)) {
    // Nothing ended it: the time it waited passed, up to the deadline.
    Advance(std::max(std::chrono::microseconds(0), std::min(slice, left())));
  }
  {
    MutexLock lock(&waiters_mu_);
    waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &waiter));
  }
  return MonotonicNow() < deadline;
}

absl::StatusOr<std::filesystem::path> FakeEnv::RealPath(
    const std::filesystem::path& path) {
  const std::string key = LockKey(path);
  MutexLock lock(&mu_);
  if (!files_.contains(key) && !dirs_.contains(key)) {
    return absl::NotFoundError(
        absl::StrCat("cannot resolve ", key, ": No such file"));
  }
  return std::filesystem::path(key);
}

}  // namespace hptune::testing
