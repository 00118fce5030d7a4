// A trainer for the trial gap benchmark: writes the wall-clock time it
// started and the time it exits, in nanoseconds since the epoch, to
// <dir>/<trial>.start and <dir>/<trial>.exit (dir from --stamp-dir=DIR, the
// trial from CLOUD_ML_TRIAL_ID), then exits 0 at once. Other flags (the
// hyperparameters, --job-dir) are ignored. A C++ program, so its own start
// adds about a millisecond, not an interpreter's tens.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

long long NowNanos() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

bool WriteStamp(const std::string& path, long long nanos) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "%lld\n", nanos);
  return std::fclose(f) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const long long started = NowNanos();
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--stamp-dir=", 12) == 0) dir = argv[i] + 12;
  }
  const char* trial = std::getenv("CLOUD_ML_TRIAL_ID");
  if (dir.empty() || trial == nullptr) return 2;
  const std::string base = dir + "/" + trial;
  if (!WriteStamp(base + ".start", started)) return 3;
  return WriteStamp(base + ".exit", NowNanos()) ? 0 : 3;
}
