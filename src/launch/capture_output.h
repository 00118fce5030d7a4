// Runs a short helper program (nvidia-smi) and collects what it prints.
// Internal to the launch module; thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_CAPTURE_OUTPUT_H_
#define HPTUNE_SRC_LAUNCH_CAPTURE_OUTPUT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::launch {

struct CapturedOutput {
  int exit_code = 0;  // Meaningful when signal is 0.
  int signal = 0;
  std::string out;
  std::string err;
};

// Runs argv (argv[0] looked up on PATH, no shell, stdin from /dev/null) to
// its end, its output pipes read through `env`. NotFound when argv[0] cannot
// be found; Internal when it cannot be started for another reason.
absl::StatusOr<CapturedOutput> RunCapturingOutput(
    Env& env, const std::vector<std::string>& argv);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_CAPTURE_OUTPUT_H_
