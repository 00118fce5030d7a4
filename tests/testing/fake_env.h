// FakeEnv: an Env whose clock moves only when the code under test sleeps or
// waits, by exactly the time it asked for. With FakeLauncher, a job runner
// then runs a job of simulated minutes in milliseconds, deterministically.
// Files are the real ones (tests keep them in a temp dir). Thread-compatible:
// one runner thread at a time.
#ifndef HPTUNE_TESTS_TESTING_FAKE_ENV_H_
#define HPTUNE_TESTS_TESTING_FAKE_ENV_H_

#include <chrono>
#include <functional>
#include <span>

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
  [[nodiscard]] absl::Status WriteFileAtomically(
      const std::filesystem::path& path, std::string_view contents,
      int mode) override {
    return DefaultEnv().WriteFileAtomically(path, contents, mode);
  }
  absl::StatusOr<std::string> ReadFile(
      const std::filesystem::path& path) override {
    return DefaultEnv().ReadFile(path);
  }

  // Called after each wait, on the waiting thread: a test's hook to act at
  // a simulated moment (set a cancel flag, free a GPU).
  std::function<void()> on_wait;

 private:
  FakeClock clock_;
};

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_FAKE_ENV_H_
