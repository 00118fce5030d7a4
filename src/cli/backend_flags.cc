#include "src/cli/backend_flags.h"

#include <string_view>
#include <utility>

#include "absl/strings/match.h"
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
                               BackendConfig& backend, BackendFlagsFor use) {
  if (auto b = args.Get("backend")) {
    if (*b != "local" && *b != "slurm") {
      return absl::InvalidArgumentError(
          absl::StrCat("--backend: expected local or slurm, got \"", *b, "\""));
    }
    backend.backend = *b;
    backend.backend_named = true;
  }
  const SlurmJobOptions flags{
      .partition = args.Get("slurm-partition").value_or(""),
      .account = args.Get("slurm-account").value_or(""),
      .time = args.Get("slurm-time").value_or(""),
      .options = std::move(slurm_options)};
  const bool slurm_flags = args.Has("slurm-partition") ||
                           args.Has("slurm-account") ||
                           args.Has("slurm-time") || !flags.options.empty();
  const bool local = backend.backend != "slurm" &&
                     (use != BackendFlagsFor::kSubmit || backend.backend_named);
  if (slurm_flags && local) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--slurm-* flags need --backend slurm",
        use == BackendFlagsFor::kServer ? ""
        : use == BackendFlagsFor::kRun  ? " (or backend: slurm in the config)"
                                        : " (or no backend, to take the "
                                          "server's), but the job names local"));
  }
  // The config's block was checked when it was read; these are named by flag.
  std::vector<FieldError> errors = ValidateSlurmJobOptions(flags, "");
  if (!errors.empty()) {
    const FieldError& first = errors.front();
    const std::string flag = absl::StartsWith(first.field, "options")
                                 ? "slurm-option"
                                 : "slurm-" + first.field;
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": ", first.message));
  }
  if (args.Has("slurm-partition")) backend.slurm.partition = flags.partition;
  if (args.Has("slurm-account")) backend.slurm.account = flags.account;
  if (args.Has("slurm-time")) backend.slurm.time = flags.time;
  backend.slurm.options.insert(backend.slurm.options.end(),
                               flags.options.begin(), flags.options.end());
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<launch::SlurmLauncher>> CreateSlurmLauncher(
    const BackendConfig& backend, const ParsedArgs& args) {
  if (args.Has("gpus")) {
    return absl::InvalidArgumentError(
        "--gpus is for the local backend; Slurm allocates the GPUs");
  }
  return launch::SlurmLauncher::Create(
      launch::SlurmOptions{.sbatch = backend.slurm});
}

}  // namespace hptune::cli
