// The host trainer of a job with built packages (trainingInput.packageUris,
// what gcloud's --package-path uploads): each replica pip-installs them
// offline into a directory of its own under its trial's directory, puts it
// in front of PYTHONPATH and runs `python -m module` from it
// (docs/trainer.md, "Packages on the host"). Used by replica_env.cc's
// TrainerCommand. Pure; thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_TRAINER_PACKAGES_H_
#define HPTUNE_SRC_LAUNCH_TRAINER_PACKAGES_H_

#include <string>
#include <vector>

#include "hptune/core/job.h"

namespace hptune::launch {

// A shell command line that installs `job.package_uris` (local paths, its
// gs:// URIs already resolved) with `python -m pip install --no-index
// --no-deps --no-build-isolation --target packages-<pid>` (in the trial's
// directory, where replicas run), then
// execs `python -m job.module_name` with the arguments appended after it.
// A failed install ends the replica with 125 ("could not run").
std::vector<std::string> PackageTrainerArgv(const JobSpec& job,
                                            const std::string& python);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_TRAINER_PACKAGES_H_
