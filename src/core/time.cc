#include "hptune/core/time.h"

#include <cstdio>
#include <ctime>

namespace hptune {

std::string FormatRfc3339(Timestamp t) {
  int64_t micros = ToUnixMicros(t);
  int64_t seconds = micros / 1'000'000;
  int64_t fraction = micros % 1'000'000;
  if (fraction < 0) {  // Floor division for times before the epoch.
    fraction += 1'000'000;
    --seconds;
  }
  std::time_t tt = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, static_cast<long long>(fraction));
  return buffer;
}

}  // namespace hptune
