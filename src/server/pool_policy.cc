#include "src/server/pool_policy.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hptune::server {
namespace {

// A pool's field as the job's dialect spells it: `vertex` is the name in
// a Vertex containerSpec (or pythonPackageSpec), `ai` in a <pool>Config.
std::string PoolField(const JobSpec& job, TaskType type, const std::string& ai,
                      const std::string& vertex) {
  if (job.dialect != SpecDialect::kVertex) {
    return absl::StrCat(job.PoolConfigPath(type), ".", ai);
  }
  const bool package = !job.pool(type).container.python_module.empty();
  return absl::StrCat(job.PoolConfigPath(type), ".",
                      package ? "pythonPackageSpec." : "containerSpec.",
                      vertex);
}

bool IsEnvName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9') || c == '_';
    if (!word) return false;
  }
  return true;
}

absl::Status Refuse(const std::string& field, const std::string& value,
                    const std::string& why) {
  return absl::PermissionDeniedError(absl::StrCat(
      field, ": \"", value,
      "\" is not allowed on a server with --allow-command rules: ", why,
      "; ask its administrator, or run it yourself with `hptune run`"));
}

}  // namespace

const std::set<std::string_view>& PoolPolicy::HarmlessEnv() {
  // Each sets a count, a level, a switch or a locale of code that is
  // already chosen; none names a file, module, library or command to load
  // (so not PYTHONWARNINGS, whose categories are imported, nor
  // NCCL_NET_PLUGIN or NCCL_DEBUG_FILE).
  static const std::set<std::string_view> kNames = {
      "OMP_NUM_THREADS",
      "MKL_NUM_THREADS",
      "OPENBLAS_NUM_THREADS",
      "NUMEXPR_NUM_THREADS",
      "PYTHONUNBUFFERED",
      "PYTHONHASHSEED",
      "PYTHONIOENCODING",
      "PYTHONDONTWRITEBYTECODE",
      "TF_CPP_MIN_LOG_LEVEL",
      "TF_ENABLE_ONEDNN_OPTS",
      "TF_FORCE_GPU_ALLOW_GROWTH",
      "TF_DETERMINISTIC_OPS",
      "TORCH_DISTRIBUTED_DEBUG",
      "TORCH_NCCL_ASYNC_ERROR_HANDLING",
      "CUBLAS_WORKSPACE_CONFIG",
      "NCCL_DEBUG",
      "NCCL_DEBUG_SUBSYS",
      "NCCL_SOCKET_IFNAME",
      "NCCL_IB_DISABLE",
      "NCCL_P2P_DISABLE",
      "TOKENIZERS_PARALLELISM",
      "LANG",
      "LC_ALL",
      "TZ",
  };
  return kNames;
}

absl::StatusOr<PoolPolicy> PoolPolicy::Parse(
    const std::vector<std::string>& allowed_env,
    const std::vector<std::string>& allowed_images) {
  PoolPolicy policy;
  for (const std::string& name : allowed_env) {
    if (!IsEnvName(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--allow-env \"", name,
                       "\": expected a variable's name (letters, digits "
                       "and '_', not starting with a digit)"));
    }
    policy.extra_env_.insert(name);
  }
  for (const std::string& image : allowed_images) {
    if (image.empty()) {
      return absl::InvalidArgumentError(
          "--allow-image \"\": expected an image, as a job names it");
    }
    policy.images_.insert(image);
  }
  return policy;
}

absl::Status PoolPolicy::CheckEnv(const JobSpec& job, TaskType type) const {
  const std::vector<EnvVar>& env = job.pool(type).env;
  for (size_t i = 0; i < env.size(); ++i) {
    const std::string& name = env[i].name;
    if (HarmlessEnv().contains(name) || extra_env_.contains(name)) continue;
    return Refuse(
        PoolField(job, type, absl::StrCat("env[", i, "].name"),
                  absl::StrCat("env[", i, "].name")),
        name,
        "a variable may choose the code an allowed program runs "
        "(PYTHONPATH, LD_PRELOAD, BASH_ENV, ...), so only those that "
        "choose none pass (docs/operations.md, \"Who may submit jobs\") "
        "and those the server names with --allow-env");
  }
  return absl::OkStatus();
}

absl::Status PoolPolicy::CheckImage(const JobSpec& job, TaskType type) const {
  const ContainerSpec& container = job.pool(type).container;
  if (!images_.contains(container.image_uri)) {
    const std::string rules =
        images_.empty() ? "none"
                        : absl::StrJoin(images_.begin(), images_.end(), ", ");
    return Refuse(
        PoolField(
            job, type, "imageUri",
            container.python_module.empty() ? "imageUri" : "executorImageUri"),
        container.image_uri,
        absl::StrCat("an image runs code of its own, and this "
                     "server's --allow-image rules (",
                     rules, ") do not name it"));
  }
  const std::string replaces = "replaces the allowed image's entrypoint";
  if (!container.command.empty()) {
    return Refuse(PoolField(job, type, "containerCommand", "command"),
                  absl::StrJoin(container.command, " "), replaces);
  }
  if (!container.python_module.empty() || !container.package_uris.empty()) {
    return Refuse(PoolField(job, type, "pythonModule", "pythonModule"),
                  container.python_module,
                  "a package installed into the allowed image chooses what "
                  "runs in it");
  }
  return absl::OkStatus();
}

absl::Status PoolPolicy::Check(const JobSpec& job) const {
  for (TaskType type : kTaskTypes) {
    if (!job.Runs(type)) continue;
    if (absl::Status s = CheckEnv(job, type); !s.ok()) return s;
    if (job.pool(type).container.empty()) continue;
    if (absl::Status s = CheckImage(job, type); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace hptune::server
