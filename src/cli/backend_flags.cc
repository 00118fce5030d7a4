#include "src/cli/backend_flags.h"

#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hptune::cli {

std::vector<std::string> TakeSlurmOptions(std::vector<std::string>& args) {
  static constexpr std::string_view kFlag = "--slurm-option";
  std::vector<std::string> options, rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      rest.insert(rest.end(), args.begin() + i, args.end());
      break;
    }
    if (a.rfind(std::string(kFlag) + "=", 0) == 0) {
      options.push_back(a.substr(kFlag.size() + 1));
    } else if (a == kFlag && i + 1 < args.size()) {
      options.push_back(args[++i]);
    } else {
      rest.push_back(a);
    }
  }
  args = std::move(rest);
  return options;
}

absl::Status ApplyBackendFlags(const ParsedArgs& args,
                               std::vector<std::string> slurm_options,
                               BackendConfig& backend, bool from_config) {
  if (auto b = args.Get("backend")) {
    if (*b != "local" && *b != "slurm") {
      return absl::InvalidArgumentError(
          absl::StrCat("--backend: expected local or slurm, got \"", *b, "\""));
    }
    backend.backend = *b;
  }
  if (auto v = args.Get("slurm-partition")) backend.slurm_partition = *v;
  if (auto v = args.Get("slurm-account")) backend.slurm_account = *v;
  if (auto v = args.Get("slurm-time")) backend.slurm_time = *v;
  const bool slurm_flags = args.Has("slurm-partition") ||
                           args.Has("slurm-account") || args.Has("slurm-time");
  if (backend.backend != "slurm" && (slurm_flags || !slurm_options.empty())) {
    return absl::InvalidArgumentError(
        absl::StrCat("--slurm-* flags need --backend slurm",
                     from_config ? " (or backend: slurm in the config)" : ""));
  }
  for (std::string& o : slurm_options) {
    backend.slurm_options.push_back(std::move(o));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<launch::SlurmLauncher>> CreateSlurmLauncher(
    const BackendConfig& backend, const ParsedArgs& args) {
  if (args.Has("gpus")) {
    return absl::InvalidArgumentError(
        "--gpus is for the local backend; Slurm allocates the GPUs");
  }
  return launch::SlurmLauncher::Create(
      launch::SlurmOptions{.partition = backend.slurm_partition,
                           .account = backend.slurm_account,
                           .time_limit = backend.slurm_time,
                           .extra_options = backend.slurm_options});
}

}  // namespace hptune::cli
