#include "hptune/runner/config_file.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace hptune::runner {
namespace {

absl::Status CannotRead(const std::string& path, const std::string& reason) {
  return absl::NotFoundError(
      absl::StrCat("cannot read config file \"", path, "\": ", reason));
}

// The system's reason in one of Env's file errors ("cannot open P: No such
// file or directory"): the part after its last ": ".
std::string ReasonOf(const absl::Status& status) {
  const std::string message(status.message());
  const size_t colon = message.rfind(": ");
  return colon == std::string::npos ? message : message.substr(colon + 2);
}

}  // namespace

absl::StatusOr<LoadedConfig> LoadConfigFile(Env& env, const std::string& path,
                                            std::string_view job_id) {
  // A directory opens fine and reads as empty: rule it out first.
  if (absl::StatusOr<FileInfo> info = env.InfoOf(path, Links::kFollow);
      info.ok() && info->type == FileType::kDirectory) {
    return CannotRead(path, "it is a directory");
  }
  // One byte past the limit is enough to refuse a huge file without
  // reading it all.
  absl::StatusOr<std::string> text =
      env.ReadFileHead(path, kMaxConfigTextBytes + 1);
  if (!text.ok()) return CannotRead(path, ReasonOf(text.status()));
  const bool json = absl::EndsWith(absl::AsciiStrToLower(path), ".json");
  ConfigParseResult parsed = ParseJobConfig(
      *text, json ? ConfigFormat::kJson : ConfigFormat::kYaml, job_id);
  if (!parsed.errors.empty()) return FieldErrorsToStatus(parsed.errors);
  return LoadedConfig{.job = std::move(*parsed.job),
                      .backend = std::move(parsed.backend),
                      .ignored_fields = std::move(parsed.ignored_fields)};
}

void ResolveConfigPaths(Env& env, const std::filesystem::path& config_dir,
                        JobSpec& job) {
  ::hptune::ResolveConfigPaths(
      config_dir,
      [&env](const std::filesystem::path& path) {
        absl::StatusOr<FileInfo> info = env.InfoOf(path, Links::kFollow);
        return info.ok() && info->type == FileType::kRegular;
      },
      job);
}

}  // namespace hptune::runner
