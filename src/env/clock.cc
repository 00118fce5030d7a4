#include "hptune/env/clock.h"

namespace hptune {
namespace {

class WallClock : public Clock {
 public:
  Timestamp Now() override {
    return std::chrono::time_point_cast<std::chrono::microseconds>(
        std::chrono::system_clock::now());
  }
};

}  // namespace

Clock& SystemClock() {
  static WallClock* clock = new WallClock();  // Never destroyed: used at exit.
  return *clock;
}

}  // namespace hptune
