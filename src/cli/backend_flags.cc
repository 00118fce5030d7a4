#include "src/cli/backend_flags.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/machine_types.h"
#include "hptune/core/status.h"

namespace hptune::cli {

namespace {

// "NVIDIA_TESLA_T4=t4" values into the map, each GPU type once.
absl::StatusOr<std::map<std::string, std::string>> ParseGpuTypes(
    const std::vector<std::string>& values) {
  const std::vector<std::string> known =
      MachineCatalogue::Builtin().AcceleratorTypes();
  std::map<std::string, std::string> types;
  for (const std::string& value : values) {
    auto bad = [&](const std::string& why) {
      return absl::InvalidArgumentError(
          absl::StrCat("--slurm-gpu-type: ", why, ", got \"", value, "\""));
    };
    const size_t eq = value.find('=');
    if (eq == std::string::npos) {
      return bad("expected GPU_TYPE=SLURM_GPU_TYPE such as NVIDIA_TESLA_T4=t4");
    }
    const std::string type = value.substr(0, eq);
    const std::string gres = value.substr(eq + 1);
    if (std::find(known.begin(), known.end(), type) == known.end()) {
      return bad(absl::StrCat("unknown GPU type \"", type, "\" (one of ",
                              absl::StrJoin(known, ", "), ")"));
    }
    const bool word =
        !gres.empty() && std::all_of(gres.begin(), gres.end(), [](char c) {
          return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
                 c == '_' || c == '-' || c == '.';
        });
    if (!word) {
      return bad(
          "the Slurm GPU type must be one word of letters, digits, '_', '-' "
          "and '.', as in gres.conf's Type=");
    }
    if (!types.emplace(type, gres).second) {
      return bad(absl::StrCat(type, " is given twice"));
    }
  }
  return types;
}

}  // namespace

RepeatedSlurmFlags RepeatedSlurmFlagsOf(const ParsedArgs& args) {
  return {.options = args.GetAll("slurm-option"),
          .gpu_types = args.GetAll("slurm-gpu-type")};
}

RepeatedSlurmFlags TakeRepeatedSlurmFlags(std::vector<std::string>& args) {
  return {.options = TakeRepeatedFlag(args, "--slurm-option"),
          .gpu_types = TakeRepeatedFlag(args, "--slurm-gpu-type")};
}

absl::Status ApplyBackendFlags(const ParsedArgs& args,
                               RepeatedSlurmFlags repeated,
                               BackendConfig& backend, BackendFlagsFor use) {
  for (const auto& [flag, given] :
       {std::pair{"slurm-gpu-type", !repeated.gpu_types.empty()},
        std::pair{"slurm-allocation", args.Has("slurm-allocation")}}) {
    if (use == BackendFlagsFor::kSubmit && given) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag,
                       ": a setting of the Slurm server (hptune "
                       "serve --",
                       flag, "), not of a job"));
    }
  }
  if (auto allocation = args.Get("slurm-allocation")) {
    HPTUNE_RETURN_IF_ERROR(launch::ParseSlurmAllocation(*allocation).status());
  }
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
      .options = std::move(repeated.options)};
  const bool slurm_flags =
      args.Has("slurm-partition") || args.Has("slurm-account") ||
      args.Has("slurm-time") || args.Has("slurm-allocation") ||
      !flags.options.empty() || !repeated.gpu_types.empty();
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
  HPTUNE_ASSIGN_OR_RETURN(backend.slurm_gpu_types,
                          ParseGpuTypes(repeated.gpu_types));
  if (args.Has("slurm-partition")) backend.slurm.partition = flags.partition;
  if (args.Has("slurm-account")) backend.slurm.account = flags.account;
  if (args.Has("slurm-time")) backend.slurm.time = flags.time;
  backend.slurm.options.insert(backend.slurm.options.end(),
                               flags.options.begin(), flags.options.end());
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<launch::SlurmLauncher>> CreateSlurmLauncher(
    const BackendConfig& backend, const ParsedArgs& args, Env& env) {
  if (args.Has("gpus")) {
    return absl::InvalidArgumentError(
        "--gpus is for the local backend; Slurm allocates the GPUs");
  }
  launch::SlurmAllocation allocation = launch::SlurmAllocation::kPerLane;
  if (auto value = args.Get("slurm-allocation")) {
    HPTUNE_ASSIGN_OR_RETURN(allocation, launch::ParseSlurmAllocation(*value));
  }
  return launch::SlurmLauncher::Create(
      launch::SlurmOptions{.env = &env,
                           .sbatch = backend.slurm,
                           .gpu_types = backend.slurm_gpu_types,
                           .allocation = allocation});
}

}  // namespace hptune::cli
