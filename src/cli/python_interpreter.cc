#include "src/cli/python_interpreter.h"

#include <filesystem>

#include "absl/strings/str_cat.h"

namespace hptune::cli {

std::string ChoosePythonInterpreter(Env& env, JobSpec& job,
                                    const char* virtual_env) {
  if (!RunsPathPython(job)) return "";
  if (!job.python_interpreter.empty()) {
    return absl::StrCat("trainer's Python: ", job.python_interpreter,
                        " (trainingInput.pythonInterpreter)");
  }
  const std::string on_path = absl::StrCat(
      "trainer's Python: ", TrainerProgram(job), " on PATH (no activated venv",
      " and no trainingInput.pythonInterpreter)");
  if (virtual_env == nullptr || *virtual_env == '\0') return on_path;
  const std::string venv_python =
      (std::filesystem::path(virtual_env) / "bin" / "python3").string();
  if (absl::StatusOr<FileInfo> info = env.InfoOf(venv_python, Links::kFollow);
      !info.ok() || info->type != FileType::kRegular ||
      (info->mode & 0111) == 0) {
    return absl::StrCat("trainer's Python: ", TrainerProgram(job),
                        " on PATH ($VIRTUAL_ENV ", virtual_env,
                        " has no executable bin/python3)");
  }
  job.python_interpreter = venv_python;
  return absl::StrCat("trainer's Python: ", venv_python,
                      " (the activated venv, $VIRTUAL_ENV)");
}

}  // namespace hptune::cli
