// Clock: where hptune's stores and engine read the time, so tests can use a
// simulated one. SystemClock() is thread-safe; FakeClock is thread-safe too.
#ifndef HPTUNE_ENV_CLOCK_H_
#define HPTUNE_ENV_CLOCK_H_

#include <atomic>
#include <chrono>

#include "hptune/core/time.h"

namespace hptune {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Timestamp Now() = 0;
};

// The real wall clock.
Clock& SystemClock();

// A clock that moves only when told to.
class FakeClock : public Clock {
 public:
  explicit FakeClock(Timestamp start = FromUnixMicros(1'700'000'000'000'000))
      : micros_(ToUnixMicros(start)) {}
  Timestamp Now() override { return FromUnixMicros(micros_.load()); }
  void Advance(std::chrono::microseconds d) { micros_ += d.count(); }

 private:
  std::atomic<int64_t> micros_;
};

}  // namespace hptune

#endif  // HPTUNE_ENV_CLOCK_H_
