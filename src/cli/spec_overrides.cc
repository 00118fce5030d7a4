#include "src/cli/spec_overrides.h"

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "src/cli/backend_flags.h"
#include "src/cli/labels_flag.h"

namespace hptune::cli {
namespace {

// A task type's flags and the pool they set.
struct PoolFlags {
  std::string prefix;  // "master" -> --master-machine-type, ...
  TaskPool JobSpec::*pool;
  bool has_count;  // The master's is always 1.
};

const std::vector<PoolFlags>& Pools() {
  static const auto* const kPools = new std::vector<PoolFlags>{
      {"master", &JobSpec::master, false},
      {"worker", &JobSpec::worker, true},
      {"parameter-server", &JobSpec::parameter_server, true},
      {"evaluator", &JobSpec::evaluator, true},
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

absl::StatusOr<std::string> PathFlag(const ParsedArgs& args,
                                     const std::string& name,
                                     const std::filesystem::path& cwd) {
  const std::string path = *args.Get(name);
  if (path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--", name, ": empty path"));
  }
  if (std::filesystem::path(path).is_absolute()) return path;
  return (cwd / path).lexically_normal().string();
}

absl::Status ApplyTierFlag(const ParsedArgs& args, JobSpec& job) {
  const std::optional<std::string> text = args.Get("scale-tier");
  if (!text) return absl::OkStatus();
  // "basic-gpu" and "BASIC_GPU" alike, as gcloud accepts both.
  std::string name = absl::AsciiStrToUpper(*text);
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  const std::optional<ScaleTier> tier = ParseScaleTier(name);
  if (!tier) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--scale-tier: expected BASIC, BASIC_GPU, BASIC_TPU, STANDARD_1, "
        "PREMIUM_1 or CUSTOM, got \"",
        *text, "\""));
  }
  if (*tier != job.scale_tier) {
    // Another tier stands for its own pools: the file's no longer apply.
    job.scale_tier = *tier;
    for (const PoolFlags& pool : Pools()) job.*pool.pool = TaskPool{};
    job.master.count = 1;
  }
  return absl::OkStatus();
}

// One task type's flags, read into `pool` (values checked before the tier,
// so a malformed value is named first).
absl::Status ApplyOnePool(const ParsedArgs& args, const PoolFlags& flags,
                          ScaleTier tier, TaskPool& pool) {
  const std::string type_flag = flags.prefix + "-machine-type";
  const std::string accelerator_flag = flags.prefix + "-accelerator";
  const std::string count_flag = flags.prefix + "-count";
  TaskPool given = pool;
  if (auto type = args.Get(type_flag)) {
    if (type->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", type_flag, ": empty machine type"));
    }
    given.machine_type = *type;
  }
  if (auto accelerator = args.Get(accelerator_flag)) {
    HPTUNE_ASSIGN_OR_RETURN(
        given.accelerator,
        ParseAcceleratorFlag(accelerator_flag, *accelerator));
  }
  if (flags.has_count && args.Has(count_flag)) {
    HPTUNE_ASSIGN_OR_RETURN(given.count, IntegerFlag(args, count_flag, 0));
  }
  for (const std::string& flag : {type_flag, accelerator_flag, count_flag}) {
    if (!args.Has(flag) || tier == ScaleTier::kCustom) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, ": only allowed with scaleTier CUSTOM, got scaleTier ",
        std::string(ToString(tier))));
  }
  pool = std::move(given);
  return absl::OkStatus();
}

absl::Status ApplyPoolFlags(const ParsedArgs& args, JobSpec& job) {
  HPTUNE_RETURN_IF_ERROR(ApplyTierFlag(args, job));
  for (const PoolFlags& pool : Pools()) {
    HPTUNE_RETURN_IF_ERROR(
        ApplyOnePool(args, pool, job.scale_tier, job.*pool.pool));
  }
  if (args.Has("use-chief-in-tf-config")) {
    HPTUNE_ASSIGN_OR_RETURN(job.use_chief_in_tf_config,
                            BoolFlag(args, "use-chief-in-tf-config"));
  }
  return absl::OkStatus();
}

absl::Status ApplyTrainerFlags(const ParsedArgs& args,
                               const std::filesystem::path& cwd, JobSpec& job) {
  if (auto command = args.Get("command")) {
    job.command = absl::StrSplit(*command, ' ', absl::SkipEmpty());
    if (job.command.empty()) {
      return absl::InvalidArgumentError("--command: empty command");
    }
    job.module_name.clear();
    job.package_path.clear();
  }
  if (auto module = args.Get("module-name")) {
    job.module_name = *module;
    job.command.clear();
  }
  if (args.Has("package-path")) {
    HPTUNE_ASSIGN_OR_RETURN(job.package_path,
                            PathFlag(args, "package-path", cwd));
  }
  if (args.Has("job-dir")) {
    HPTUNE_ASSIGN_OR_RETURN(job.job_dir, PathFlag(args, "job-dir", cwd));
  }
  for (const std::string& arg : args.after_dashes) job.args.push_back(arg);
  return ApplyLabelsFlag(args, job.labels);
}

absl::Status NeedsStudy(const JobSpec& job, const std::string& flag) {
  if (job.study) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--", flag,
      ": the job has no hyperparameters to tune (give a --config with "
      "trainingInput.hyperparameters)"));
}

absl::Status ApplyStudyFlags(const ParsedArgs& args, JobSpec& job) {
  const std::vector<std::pair<const char*, int StudySpec::*>> kCounts = {
      {"max-trials", &StudySpec::max_trials},
      {"max-parallel-trials", &StudySpec::max_parallel_trials},
      {"max-failed-trials", &StudySpec::max_failed_trials},
  };
  for (const auto& [flag, field] : kCounts) {
    if (!args.Has(flag)) continue;
    const int min = field == &StudySpec::max_failed_trials ? 0 : 1;
    HPTUNE_ASSIGN_OR_RETURN(int value, IntegerFlag(args, flag, min));
    HPTUNE_RETURN_IF_ERROR(NeedsStudy(job, flag));
    (*job.study).*field = value;
  }
  if (auto from = args.Get("resume-from")) {
    HPTUNE_RETURN_IF_ERROR(NeedsStudy(job, "resume-from"));
    HPTUNE_RETURN_IF_ERROR(
        FieldErrorsToStatus(ValidateJobId(*from, "--resume-from")));
    if (*from == job.job_id) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--resume-from: \"", *from,
          "\" is this job's own ID: a job resumes another, ended job"));
    }
    job.study->resume_previous_job_id = *from;
  }
  if (auto rule = args.Get("early-stopping")) {
    HPTUNE_RETURN_IF_ERROR(NeedsStudy(job, "early-stopping"));
    job.study->enable_early_stopping = true;
    job.study->early_stopping_rule = *rule;
    // The config's convexStopping settings are the convex rule's alone.
    if (*rule != "convex") job.study->convex_stopping = {};
  }
  return absl::OkStatus();
}

}  // namespace

const std::set<std::string>& SpecOverrideFlags() {
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
                                            "early-stopping",
                                            "use-chief-in-tf-config",
                                            kLabelsFlag};
    for (const PoolFlags& pool : Pools()) {
      flags->insert(pool.prefix + "-machine-type");
      flags->insert(pool.prefix + "-accelerator");
      if (pool.has_count) flags->insert(pool.prefix + "-count");
    }
    return flags;
  }();
  return *kFlags;
}

const char kSpecOverrideHelp[] =
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
    "  --early-stopping RULE     stop trials early by RULE "
    "(earlyStoppingRule):\n"
    "                            median-at-step, median, asha, asha-resume,\n"
    "                            envelope, decay-curve, convex, or a rule\n"
    "                            the server registered\n";

absl::Status ApplyOverrides(const ParsedArgs& args,
                            const std::filesystem::path& cwd, JobSpec& job) {
  HPTUNE_RETURN_IF_ERROR(ApplyTrainerFlags(args, cwd, job));
  HPTUNE_RETURN_IF_ERROR(ApplyPoolFlags(args, job));
  return ApplyStudyFlags(args, job);
}

absl::StatusOr<JobSpec> CheckOverriddenJob(const JobSpec& job,
                                           bool from_config) {
  ConfigParseResult parsed =
      ParseJobConfig(TrainingInputToJson(job), ConfigFormat::kJson, job.job_id);
  if (!parsed.errors.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        from_config ? "the config with the command-line flags applied:\n"
                    : "the job given by the command-line flags:\n",
        FieldErrorsToStatus(parsed.errors).message()));
  }
  parsed.job->labels = job.labels;
  parsed.job->slurm = job.slurm;
  return *std::move(parsed.job);
}

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

}  // namespace hptune::cli
