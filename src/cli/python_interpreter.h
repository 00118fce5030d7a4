// Which Python `hptune run` gives a job whose trainer is Python from PATH
// (docs/trainer.md, "Which Python"). Used by the run command before the
// trainer is checked; a pure function of its arguments and the file system
// (read through the Env given), thread-safe.
//
// Why: a trainer whose packages live in a venv failed until that venv was
// activated, since replicas ran `python3` from PATH. In order: the
// config's trainingInput.pythonInterpreter, else the activated venv's
// ($VIRTUAL_ENV/bin/python3), else `python3` on PATH.
#ifndef HPTUNE_SRC_CLI_PYTHON_INTERPRETER_H_
#define HPTUNE_SRC_CLI_PYTHON_INTERPRETER_H_

#include <string>

#include "hptune/core/job.h"
#include "hptune/env/env.h"

namespace hptune::cli {

// Sets job.python_interpreter to `virtual_env`/bin/python3 when the job runs
// Python from PATH (RunsPathPython), names none, and that file (a link
// followed) is a regular file with an execute bit. Returns the start-up
// line saying which Python runs the trainer and why, "" for a job that
// runs no Python from PATH. `virtual_env`: $VIRTUAL_ENV, or nullptr.
std::string ChoosePythonInterpreter(Env& env, JobSpec& job,
                                    const char* virtual_env);

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_PYTHON_INTERPRETER_H_
