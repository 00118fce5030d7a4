#include "src/cli/client/submit_flags.h"

#include <cctype>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "nlohmann/json.hpp"
#include "src/cli/backend_flags.h"
#include "src/cli/labels_flag.h"

namespace hptune::cli::client {
namespace {

using Json = nlohmann::ordered_json;

// A task type's flags and the trainingInput keys they set.
struct PoolFlags {
  std::string prefix;  // "master" -> --master-machine-type, ...
  std::string type_key;
  std::string config_key;
  std::string count_key;  // Empty for the master: there is always one.
};

const std::vector<PoolFlags>& Pools() {
  static const auto* const kPools = new std::vector<PoolFlags>{
      {"master", "masterType", "masterConfig", ""},
      {"worker", "workerType", "workerConfig", "workerCount"},
      {"parameter-server", "parameterServerType", "parameterServerConfig",
       "parameterServerCount"},
      {"evaluator", "evaluatorType", "evaluatorConfig", "evaluatorCount"},
  };
  return *kPools;
}

absl::StatusOr<bool> BoolFlag(const ParsedArgs& args, const std::string& name) {
  const std::string text = *args.Get(name);
  if (text == "true") return true;
  if (text == "false") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, ": expected true or false, got \"", text, "\""));
}

std::string Absolute(const std::filesystem::path& base,
                     const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (base / p).lexically_normal().string();
}

// "basic-gpu" and "BASIC_GPU" alike, as gcloud accepts both.
std::string NormalizeTier(const std::string& text) {
  std::string tier = absl::AsciiStrToUpper(text);
  for (char& c : tier) {
    if (c == '-') c = '_';
  }
  return tier;
}

absl::Status ApplyPoolFlags(const ParsedArgs& args, Json& input) {
  if (auto tier = args.Get("scale-tier")) {
    input["scaleTier"] = NormalizeTier(*tier);
    // Another tier stands for its own pools: the file's no longer apply.
    if (input["scaleTier"] != "CUSTOM") {
      for (const PoolFlags& pool : Pools()) {
        input.erase(pool.type_key);
        input.erase(pool.config_key);
        if (!pool.count_key.empty()) input.erase(pool.count_key);
      }
    }
  }
  for (const PoolFlags& pool : Pools()) {
    const std::string type_flag = pool.prefix + "-machine-type";
    if (auto type = args.Get(type_flag)) {
      if (type->empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", type_flag, ": empty machine type"));
      }
      input[pool.type_key] = *type;
    }
    const std::string accelerator_flag = pool.prefix + "-accelerator";
    if (auto accelerator = args.Get(accelerator_flag)) {
      HPTUNE_ASSIGN_OR_RETURN(
          AcceleratorConfig config,
          ParseAcceleratorFlag(accelerator_flag, *accelerator));
      input[pool.config_key]["acceleratorConfig"] = {{"count", config.count},
                                                     {"type", config.type}};
    }
    const std::string count_flag = pool.prefix + "-count";
    if (!pool.count_key.empty() && args.Has(count_flag)) {
      HPTUNE_ASSIGN_OR_RETURN(int count, IntegerFlag(args, count_flag, 0));
      input[pool.count_key] = count;
    }
  }
  if (args.Has("use-chief-in-tf-config")) {
    HPTUNE_ASSIGN_OR_RETURN(input["useChiefInTfConfig"],
                            BoolFlag(args, "use-chief-in-tf-config"));
  }
  return absl::OkStatus();
}

absl::Status ApplyTrainerFlags(const ParsedArgs& args,
                               const std::filesystem::path& cwd, Json& input) {
  if (auto command = args.Get("command")) {
    std::vector<std::string> words =
        absl::StrSplit(*command, ' ', absl::SkipEmpty());
    if (words.empty()) {
      return absl::InvalidArgumentError("--command: empty command");
    }
    input["command"] = words;
    input.erase("pythonModule");
    input.erase("packagePath");
  }
  if (auto module = args.Get("module-name")) {
    input["pythonModule"] = *module;
    input.erase("command");
  }
  if (auto path = args.Get("package-path")) {
    if (path->empty()) {
      return absl::InvalidArgumentError("--package-path: empty path");
    }
    input["packagePath"] = Absolute(cwd, *path);
  }
  if (auto dir = args.Get("job-dir")) {
    if (dir->empty()) {
      return absl::InvalidArgumentError("--job-dir: empty path");
    }
    input["jobDir"] = Absolute(cwd, *dir);
  }
  for (const std::string& arg : args.after_dashes) input["args"].push_back(arg);
  return absl::OkStatus();
}

absl::Status ApplyStudyFlags(const ParsedArgs& args, Json& input) {
  static const std::vector<std::pair<std::string, std::string>> kFlags = {
      {"max-trials", "maxTrials"},
      {"max-parallel-trials", "maxParallelTrials"},
      {"max-failed-trials", "maxFailedTrials"},
  };
  for (const auto& [flag, key] : kFlags) {
    if (!args.Has(flag)) continue;
    HPTUNE_ASSIGN_OR_RETURN(
        int value, IntegerFlag(args, flag, key == "maxFailedTrials" ? 0 : 1));
    if (!input.contains("hyperparameters")) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag,
                       ": the job has no hyperparameters to tune "
                       "(give a --config with "
                       "trainingInput.hyperparameters)"));
    }
    input["hyperparameters"][key] = value;
  }
  if (auto from = args.Get("resume-from")) {
    if (!input.contains("hyperparameters")) {
      return absl::InvalidArgumentError(
          "--resume-from: the job has no hyperparameters to tune (give a "
          "--config with trainingInput.hyperparameters)");
    }
    // The config parser checks it as resumePreviousJobId, naming the field.
    input["hyperparameters"]["resumePreviousJobId"] = *from;
  }
  return absl::OkStatus();
}

}  // namespace

const std::set<std::string>& SubmitOverrideFlags() {
  static const auto* const kFlags = [] {
    auto* flags = new std::set<std::string>{"command",
                                            "module-name",
                                            "package-path",
                                            "job-dir",
                                            "scale-tier",
                                            "max-trials",
                                            "max-parallel-trials",
                                            "max-failed-trials",
                                            "resume-from",
                                            "use-chief-in-tf-config",
                                            kLabelsFlag};
    flags->insert(std::begin(kBackendValueFlags), std::end(kBackendValueFlags));
    for (const PoolFlags& pool : Pools()) {
      flags->insert(pool.prefix + "-machine-type");
      flags->insert(pool.prefix + "-accelerator");
      if (!pool.count_key.empty()) flags->insert(pool.prefix + "-count");
    }
    return flags;
  }();
  return *kFlags;
}

const char kSubmitOverrideHelp[] =
    "The trainer (overrides the config's):\n"
    "  --command \"PROGRAM ARGS\"  any executable; split on spaces, no shell.\n"
    "                            Give paths the server can see (absolute)\n"
    "  --module-name MODULE      run `python3 -m MODULE`, with\n"
    "  --package-path DIR        the package directory\n"
    "  --job-dir DIR             each trial gets --job-dir=DIR/<trial>\n"
    "  -- ARGS...                user args, appended to the config's args\n"
    "Machines (override the config's; see docs/config.md):\n"
    "  --scale-tier TIER         BASIC, BASIC_GPU, STANDARD_1, PREMIUM_1 or\n"
    "                            CUSTOM; a tier other than CUSTOM replaces\n"
    "                            the config's task pools\n"
    "  --master-machine-type T   --master-accelerator count=N,type=T\n"
    "  --worker-count N          --worker-machine-type T\n"
    "  --worker-accelerator count=N,type=T\n"
    "  --parameter-server-count N  --parameter-server-machine-type T\n"
    "  --parameter-server-accelerator count=N,type=T\n"
    "  --evaluator-count N       --evaluator-machine-type T\n"
    "  --evaluator-accelerator count=N,type=T\n"
    "                            (machine flags need scaleTier CUSTOM)\n"
    "  --use-chief-in-tf-config true|false\n"
    "Labels (over the config's labels:):\n"
    "  --labels K=V[,K=V...]     the job's labels, e.g. team=vision,owner=ana\n"
    "                            (a key given replaces the config's value)\n"
    "Study (override the config's hyperparameters):\n"
    "  --max-trials N, --max-parallel-trials N, --max-failed-trials N\n"
    "  --resume-from JOB         start from an ended job's results\n"
    "                            (resumePreviousJobId); --max-trials counts\n"
    "                            the new trials\n"
    "Backend (override the config's backend: and slurm: block):\n"
    "  --backend local|slurm     the backend the job asks for; without it\n"
    "                            (and without backend: in the config) the\n"
    "                            job takes the server's, and a server of the\n"
    "                            other backend refuses the job\n"
    "  --slurm-partition P       --slurm-account A  --slurm-time LIMIT\n"
    "  --slurm-option=OPT        an extra sbatch option, repeatable, after\n"
    "                            the config's and the server's own\n"
    "                            (a Slurm server applies these over its\n"
    "                            --slurm-* options)\n";

absl::StatusOr<AcceleratorConfig> ParseAcceleratorFlag(
    const std::string& flag, const std::string& value) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": ", why,
                     " (expected count=N,type=TYPE), got \"", value, "\""));
  };
  AcceleratorConfig config{.count = 1, .type = ""};
  bool has_count = false;
  for (absl::string_view part : absl::StrSplit(value, ',')) {
    std::pair<std::string, std::string> kv =
        absl::StrSplit(part, absl::MaxSplits('=', 1));
    const std::string key(absl::StripAsciiWhitespace(kv.first));
    const std::string v(absl::StripAsciiWhitespace(kv.second));
    if (key == "count" && !has_count) {
      if (!absl::SimpleAtoi(v, &config.count) || config.count < 1) {
        return bad(
            absl::StrCat("count must be an integer >= 1, got \"", v, "\""));
      }
      has_count = true;
    } else if (key == "type" && config.type.empty()) {
      if (v.empty()) return bad("empty type");
      config.type = v;
    } else if (key == "count" || key == "type") {
      return bad(absl::StrCat(key, " given twice"));
    } else {
      return bad(absl::StrCat("unknown key \"", key, "\""));
    }
  }
  if (config.type.empty()) return bad("type is required");
  return config;
}

absl::StatusOr<Submission> BuildSubmission(
    const std::string& job_id, const std::optional<std::string>& config_path,
    const ParsedArgs& args, RepeatedSlurmFlags slurm_flags,
    const std::filesystem::path& cwd) {
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(ValidateJobId(job_id, "JOB")));
  JobSpec from_file;
  BackendConfig backend;
  if (config_path) {
    HPTUNE_ASSIGN_OR_RETURN(LoadedConfig loaded, LoadConfigFile(*config_path));
    from_file = std::move(loaded.job);
    backend = loaded.backend;
    const std::filesystem::path config_dir =
        std::filesystem::path(Absolute(cwd, *config_path)).parent_path();
    ResolveConfigPaths(config_dir, from_file);
  }
  HPTUNE_RETURN_IF_ERROR(ApplyBackendFlags(args, std::move(slurm_flags),
                                           backend, BackendFlagsFor::kSubmit));
  JobLabels labels = std::move(from_file.labels);
  HPTUNE_RETURN_IF_ERROR(ApplyLabelsFlag(args, labels));
  Json input = Json::parse(TrainingInputToJson(from_file))["trainingInput"];
  HPTUNE_RETURN_IF_ERROR(ApplyTrainerFlags(args, cwd, input));
  HPTUNE_RETURN_IF_ERROR(ApplyPoolFlags(args, input));
  HPTUNE_RETURN_IF_ERROR(ApplyStudyFlags(args, input));

  const std::string merged = Json{{"trainingInput", input}}.dump();
  ConfigParseResult parsed =
      ParseJobConfig(merged, ConfigFormat::kJson, job_id);
  if (!parsed.errors.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        config_path ? "the config with the command-line flags applied:\n"
                    : "the job given by the command-line flags:\n",
        FieldErrorsToStatus(parsed.errors).message()));
  }
  Submission submission{
      .job = *std::move(parsed.job),
      .training_input_json = "",
      .backend = backend.backend_named ? backend.backend : ""};
  submission.job.labels = std::move(labels);
  submission.job.slurm = std::move(backend.slurm);
  submission.training_input_json =
      Json::parse(TrainingInputToJson(submission.job))["trainingInput"].dump();
  return submission;
}

}  // namespace hptune::cli::client
