#include "hptune/launch/trainer_check.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hptune/core/status.h"

namespace hptune::launch {
namespace {

// The modules and packages directly in `dir`, for an error message.
std::string ModulesIn(Env& env, const std::filesystem::path& dir) {
  std::vector<std::string> names;
  absl::StatusOr<std::vector<DirectoryEntry>> entries = env.ListDirectory(dir);
  for (const DirectoryEntry& entry :
       entries.ok() ? *entries : std::vector<DirectoryEntry>{}) {
    const std::filesystem::path name(entry.name);
    if (name.extension() == ".py" && name.stem() != "__init__") {
      names.push_back(name.stem().string());
    } else if (entry.type == FileType::kDirectory &&
               env.Exists(dir / name / "__init__.py")) {
      names.push_back(entry.name + "/");
    }
    if (names.size() >= 20) break;
  }
  std::sort(names.begin(), names.end());
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

// What is at `path`, a link followed; nullopt when nothing is.
std::optional<FileType> FollowedTypeOf(Env& env,
                                       const std::filesystem::path& path) {
  absl::StatusOr<FileInfo> info = env.InfoOf(path, Links::kFollow);
  if (!info.ok()) return std::nullopt;
  return info->type;
}

// `python3 -m module` with packagePath's parent on PYTHONPATH (see
// TrainerCommand): the module's file is under that parent.
absl::Status CheckModuleInPackage(Env& env, const JobSpec& job) {
  const std::string quoted_package = absl::StrCat("\"", job.package_path, "\"");
  absl::StatusOr<std::filesystem::path> absolute =
      env.Absolute(job.package_path);
  std::filesystem::path package =
      (absolute.ok() ? *absolute : std::filesystem::path(job.package_path))
          .lexically_normal();
  if (!package.has_filename()) package = package.parent_path();
  const std::optional<FileType> package_type = FollowedTypeOf(env, package);
  if (package_type != FileType::kDirectory) {
    return absl::NotFoundError(absl::StrCat(
        "trainingInput.packagePath: ", quoted_package,
        package_type.has_value() ? " is not a directory" : " does not exist",
        " (the directory of the trainer's Python package)"));
  }
  if (job.module_name.empty()) return absl::OkStatus();
  std::filesystem::path where = package.parent_path();
  std::vector<std::string> parts = absl::StrSplit(job.module_name, '.');
  for (size_t i = 0; i + 1 < parts.size(); ++i) where /= parts[i];
  const std::string& leaf = parts.back();
  if (FollowedTypeOf(env, where / (leaf + ".py")) == FileType::kRegular ||
      FollowedTypeOf(env, where / leaf / "__main__.py") == FileType::kRegular) {
    return absl::OkStatus();
  }
  const std::string top = parts.front();
  if (top != package.filename().string()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "trainingInput.pythonModule: \"", job.module_name,
        "\" is not in packagePath ", quoted_package, ": its package is \"",
        package.filename().string(), "\", so the module should start with \"",
        package.filename().string(), ".\""));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("trainingInput.pythonModule: \"", job.module_name,
                   "\" is not in packagePath ", quoted_package, ": no ", leaf,
                   ".py or ", leaf, "/__main__.py in ", where.string(),
                   " (modules there: ", ModulesIn(env, where), ")"));
}

}  // namespace

absl::Status CheckTrainer(Env& env, const JobSpec& job) {
  if (!job.package_path.empty()) {
    HPTUNE_RETURN_IF_ERROR(CheckModuleInPackage(env, job));
  }
  const bool module_job = job.command.empty();
  if (module_job && job.module_name.empty()) return absl::OkStatus();
  const std::string program = TrainerProgram(job);
  const std::string field =
      RunsPathPython(job) && !job.python_interpreter.empty()
          ? "trainingInput.pythonInterpreter"
      : module_job ? "trainingInput.pythonModule (python3)"
                   : "trainingInput.command[0]";
  if (program.find('/') != std::string::npos &&
      std::filesystem::path(program).is_relative()) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": \"", program,
        "\" is a relative path, and replicas run in their trial's directory: "
        "give an absolute path (in a config, a path relative to the config's "
        "directory is made absolute)"));
  }
  absl::Status runnable = CheckExecutable(program);
  if (runnable.ok()) return runnable;
  return absl::Status(runnable.code(),
                      absl::StrCat(field, ": ", runnable.message()));
}

}  // namespace hptune::launch
