// Whether a job's trainer can start on this machine, checked before anything
// runs: by `hptune validate`, `hptune run` and a local server's SubmitJob.
// Looks at the trainer's files through the Env it is handed; thread-safe.
#ifndef HPTUNE_LAUNCH_TRAINER_CHECK_H_
#define HPTUNE_LAUNCH_TRAINER_CHECK_H_

#include "absl/status/status.h"
#include "hptune/core/job.h"
#include "hptune/env/env.h"

namespace hptune::launch {

// Whether the trainer of `job` can start on this machine, checked before
// anything runs (validate, run, a local server's SubmitJob): packagePath
// is a directory that holds pythonModule, and the program (command[0] or
// python3) exists and is executable (CheckExecutable). Replicas run in their
// trial's directory, so a relative program path with a '/' is refused: the
// caller makes paths of a config absolute first. InvalidArgument or
// NotFound with the field and the value, e.g. `trainingInput.pythonModule:
// "trainer.tsk" is not in packagePath "/src/trainer": no tsk.py or tsk/
// there (modules: model, task)`.
// Files are looked at through `env`, a relative packagePath taken from its
// working directory.
[[nodiscard]] absl::Status CheckTrainer(Env& env, const JobSpec& job);

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_TRAINER_CHECK_H_
