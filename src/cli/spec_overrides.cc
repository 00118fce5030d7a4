#include "src/cli/spec_overrides.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hptune/core/config.h"
#include "hptune/core/job_validation.h"
#include "hptune/core/status.h"
#include "src/cli/labels_flag.h"
#include "src/cli/stopping_rules.h"

namespace hptune::cli {
namespace {

using enum FlagArity;
constexpr std::string_view kTrainer = "Trainer (over the config's):";
constexpr std::string_view kMachines =
    "Machines (over the config's; docs/config.md):";
constexpr std::string_view kStudy =
    "Study (over the config's hyperparameters):";

// The pools the machine flags set, by the flags' prefix.
constexpr TaskPool JobSpec::*kMaster = &JobSpec::master;
constexpr TaskPool JobSpec::*kWorker = &JobSpec::worker;
constexpr TaskPool JobSpec::*kParameterServer = &JobSpec::parameter_server;
constexpr TaskPool JobSpec::*kEvaluator = &JobSpec::evaluator;

const std::string& ValueOf(const OverrideTarget& t) {
  return t.args.flags.at(t.flag);
}

absl::Status ApplyPath(const OverrideTarget& t, std::string& path) {
  const std::string& text = ValueOf(t);
  if (text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", t.flag, ": empty path"));
  }
  // A bucket URL (gs://B/P) stays as written: --gcs-root gives it its
  // local home, and the job's rules judge it.
  const bool url = text.find("://") != std::string::npos;
  path = url || std::filesystem::path(text).is_absolute()
             ? text
             : (t.cwd / text).lexically_normal().string();
  return absl::OkStatus();
}

absl::Status ApplyCommand(const OverrideTarget& t) {
  t.job.command = absl::StrSplit(ValueOf(t), ' ', absl::SkipEmpty());
  if (t.job.command.empty()) {
    return absl::InvalidArgumentError("--command: empty command");
  }
  t.job.module_name.clear();
  t.job.package_path.clear();
  return absl::OkStatus();
}

absl::Status ApplyModule(const OverrideTarget& t) {
  t.job.module_name = ValueOf(t);
  t.job.command.clear();
  return absl::OkStatus();
}

absl::Status ApplyPackagePath(const OverrideTarget& t) {
  return ApplyPath(t, t.job.package_path);
}

absl::Status ApplyJobDir(const OverrideTarget& t) {
  return ApplyPath(t, t.job.job_dir);
}

absl::Status ApplyLabels(const OverrideTarget& t) {
  return ApplyLabelsFlag(t.args, t.job.labels);
}

// The API's name of an enum value gcloud spells its own way: "basic-gpu"
// is BASIC_GPU, "grid-search" GRID_SEARCH; gcloud accepts both.
std::string ApiEnumName(const std::string& text) {
  std::string name = absl::AsciiStrToUpper(text);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

absl::Status ApplyTier(const OverrideTarget& t) {
  const std::string& text = ValueOf(t);
  const std::optional<ScaleTier> tier = ParseScaleTier(ApiEnumName(text));
  if (!tier) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--scale-tier: expected BASIC, BASIC_GPU, BASIC_TPU, STANDARD_1, "
        "PREMIUM_1 or CUSTOM, got \"",
        text, "\""));
  }
  if (*tier != t.job.scale_tier) {
    // Another tier stands for its own pools: the file's no longer apply.
    t.job.scale_tier = *tier;
    for (auto pool : {kMaster, kWorker, kParameterServer, kEvaluator}) {
      t.job.*pool = TaskPool{};
    }
    t.job.master.count = 1;
  }
  return absl::OkStatus();
}

// A machine flag's value is checked before the tier, so a malformed value
// is named first.
absl::Status NeedsCustomTier(const OverrideTarget& t) {
  if (t.job.scale_tier == ScaleTier::kCustom) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", t.flag, ": only allowed with scaleTier CUSTOM, got ",
                   "scaleTier ", std::string(ToString(t.job.scale_tier))));
}

template <TaskPool JobSpec::*kPool>
absl::Status ApplyMachineType(const OverrideTarget& t) {
  if (ValueOf(t).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", t.flag, ": empty machine type"));
  }
  HPTUNE_RETURN_IF_ERROR(NeedsCustomTier(t));
  (t.job.*kPool).machine_type = ValueOf(t);
  return absl::OkStatus();
}

template <TaskPool JobSpec::*kPool>
absl::Status ApplyAccelerator(const OverrideTarget& t) {
  HPTUNE_ASSIGN_OR_RETURN(AcceleratorConfig accelerator,
                          ParseAcceleratorFlag(t.flag, ValueOf(t)));
  HPTUNE_RETURN_IF_ERROR(NeedsCustomTier(t));
  (t.job.*kPool).accelerator = accelerator;
  return absl::OkStatus();
}

template <TaskPool JobSpec::*kPool>
absl::Status ApplyCount(const OverrideTarget& t) {
  HPTUNE_ASSIGN_OR_RETURN(int count, IntegerFlag(t.args, t.flag, 0));
  HPTUNE_RETURN_IF_ERROR(NeedsCustomTier(t));
  (t.job.*kPool).count = count;
  return absl::OkStatus();
}

absl::Status ApplyUseChief(const OverrideTarget& t) {
  const std::string& text = ValueOf(t);
  if (text != "true" && text != "false") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", t.flag, ": expected true or false, got \"", text, "\""));
  }
  t.job.use_chief_in_tf_config = text == "true";
  return absl::OkStatus();
}

absl::Status NeedsStudy(const OverrideTarget& t) {
  if (t.job.study) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--", t.flag,
      ": the job has no hyperparameters to tune (give a --config with "
      "trainingInput.hyperparameters)"));
}

// A count of the study's Budget.
template <int Budget::*kField, int kMin>
absl::Status ApplyStudyCount(const OverrideTarget& t) {
  HPTUNE_ASSIGN_OR_RETURN(int value, IntegerFlag(t.args, t.flag, kMin));
  HPTUNE_RETURN_IF_ERROR(NeedsStudy(t));
  (*t.job.study).*kField = value;
  return absl::OkStatus();
}

absl::Status ApplyResumeFrom(const OverrideTarget& t) {
  const std::string& from = ValueOf(t);
  HPTUNE_RETURN_IF_ERROR(NeedsStudy(t));
  HPTUNE_RETURN_IF_ERROR(
      FieldErrorsToStatus(ValidateJobId(from, "--resume-from")));
  if (from == t.job.job_id) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--resume-from: \"", from,
        "\" is this job's own ID: a job resumes another, ended job"));
  }
  t.job.study->resume_previous_job_id = from;
  return absl::OkStatus();
}

absl::Status ApplyEarlyStopping(const OverrideTarget& t) {
  const std::string& rule = ValueOf(t);
  HPTUNE_RETURN_IF_ERROR(NeedsStudy(t));
  const std::string previous = t.job.study->EffectiveStoppingRule();
  t.job.study->enable_early_stopping = true;
  t.job.study->early_stopping_rule = rule;
  // The config's settings are the rule's they were written for alone.
  StoppingSettings& settings = t.job.study->stopping_settings;
  const std::string& written_for =
      settings.rule.empty() ? previous : settings.rule;
  if (rule != written_for) settings = {};
  return absl::OkStatus();
}

absl::Status ApplyDisplayName(const OverrideTarget& t) {
  t.job.display_name = ValueOf(t);
  return absl::OkStatus();
}

absl::Status ApplyAlgorithm(const OverrideTarget& t) {
  const std::string& text = ValueOf(t);
  const std::optional<Algorithm> algorithm = ParseAlgorithm(ApiEnumName(text));
  if (!algorithm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--algorithm: expected algorithm-unspecified, grid-search, "
        "random-search, quasi-random-search or multi-fidelity-gp, got \"",
        text, "\""));
  }
  HPTUNE_RETURN_IF_ERROR(NeedsStudy(t));
  t.job.study->algorithm = *algorithm;
  t.job.study->custom_algorithm.clear();
  return absl::OkStatus();
}

template <TaskPool JobSpec::*kPool>
absl::Status ApplyImage(const OverrideTarget& t) {
  (t.job.*kPool).container.image_uri = ValueOf(t);
  return absl::OkStatus();
}

constexpr std::string_view kGcloudNames =
    "gcloud's (ai-platform jobs submit training, ai hp-tuning-jobs create):";

constexpr char kMachineTypeHelp[] = "the machine type, CUSTOM tier only";
constexpr char kAcceleratorHelp[] = "its GPUs, CUSTOM tier only";
constexpr char kCountHelp[] = "how many, CUSTOM tier only";

// gcloud's flags that set what they name there.
std::vector<FlagSpec> GcloudNameRows() {
  return {
      {"display-name", kValue, "NAME", kRunAndSubmit, kGcloudNames,
       "the job's name to show, apart from its ID (Vertex's)", 0, "displayName",
       ApplyDisplayName},
      {"algorithm", kValue, "ALGORITHM", kRunAndSubmit, kGcloudNames,
       "algorithm-unspecified (hptune's GP), grid-search, random-search, "
       "quasi-random-search or multi-fidelity-gp",
       0, "hyperparameters.algorithm", ApplyAlgorithm},
      {"master-image-uri", kValue, "IMAGE", kRunAndSubmit, kGcloudNames,
       "the master's container image", 0, "masterConfig.imageUri",
       ApplyImage<kMaster>},
      {"worker-image-uri", kValue, "IMAGE", kRunAndSubmit, kGcloudNames,
       "the workers' container image", 0, "workerConfig.imageUri",
       ApplyImage<kWorker>},
      {"parameter-server-image-uri", kValue, "IMAGE", kRunAndSubmit,
       kGcloudNames, "the parameter servers' container image", 0,
       "parameterServerConfig.imageUri", ApplyImage<kParameterServer>},
      {"max-trial-count", kValue, "N", kRunAndSubmit, kGcloudNames,
       "as --max-trials", 0, "maxTrials",
       ApplyStudyCount<&Budget::max_trials, 1>, "max-trials"},
      {"parallel-trial-count", kValue, "N", kRunAndSubmit, kGcloudNames,
       "as --max-parallel-trials", 0, "maxParallelTrials",
       ApplyStudyCount<&Budget::max_parallel_trials, 1>, "max-parallel-trials"},
      {"max-failed-trial-count", kValue, "N", kRunAndSubmit, kGcloudNames,
       "as --max-failed-trials", 0, "maxFailedTrials",
       ApplyStudyCount<&Budget::max_failed_trials, 0>, "max-failed-trials"},
  };
}

// hptune's own flags over the config.
std::vector<FlagSpec> OwnRows() {
  return {
      {"command", kValue, "\"PROGRAM ARGS\"", kRunAndSubmit, kTrainer,
       "any executable, split on spaces, no shell; drops the config's "
       "pythonModule and packagePath (jobs submit: paths the server sees)",
       0, "command", ApplyCommand},
      {"module-name", kValue, "MODULE", kRunAndSubmit, kTrainer,
       "run `python3 -m MODULE`; drops the config's command", 0, "pythonModule",
       ApplyModule},
      {"package-path", kValue, "DIR", kRunAndSubmit, kTrainer,
       "the package directory (its parent goes on PYTHONPATH)", 0,
       "packagePath", ApplyPackagePath},
      {"job-dir", kValue, "DIR", kRunAndSubmit, kTrainer,
       "each trial gets --job-dir=DIR/<trial>", 0, "jobDir", ApplyJobDir},

      {"scale-tier", kValue, "TIER", kRunAndSubmit, kMachines,
       "BASIC, BASIC_GPU, STANDARD_1, PREMIUM_1 or CUSTOM; a tier other than "
       "CUSTOM replaces the config's task pools",
       0, "scaleTier", ApplyTier},
      {"master-machine-type", kValue, "T", kRunAndSubmit, kMachines,
       kMachineTypeHelp, 0, "masterType", ApplyMachineType<kMaster>},
      {"master-accelerator", kValue, "count=N,type=T", kRunAndSubmit, kMachines,
       kAcceleratorHelp, 0, "masterConfig.acceleratorConfig",
       ApplyAccelerator<kMaster>},
      {"worker-count", kValue, "N", kRunAndSubmit, kMachines, kCountHelp, 0,
       "workerCount", ApplyCount<kWorker>},
      {"worker-machine-type", kValue, "T", kRunAndSubmit, kMachines,
       kMachineTypeHelp, 0, "workerType", ApplyMachineType<kWorker>},
      {"worker-accelerator", kValue, "count=N,type=T", kRunAndSubmit, kMachines,
       kAcceleratorHelp, 0, "workerConfig.acceleratorConfig",
       ApplyAccelerator<kWorker>},
      {"parameter-server-count", kValue, "N", kRunAndSubmit, kMachines,
       kCountHelp, 0, "parameterServerCount", ApplyCount<kParameterServer>},
      {"parameter-server-machine-type", kValue, "T", kRunAndSubmit, kMachines,
       kMachineTypeHelp, 0, "parameterServerType",
       ApplyMachineType<kParameterServer>},
      {"parameter-server-accelerator", kValue, "count=N,type=T", kRunAndSubmit,
       kMachines, kAcceleratorHelp, 0,
       "parameterServerConfig.acceleratorConfig",
       ApplyAccelerator<kParameterServer>},
      {"evaluator-count", kValue, "N", kRunAndSubmit, kMachines, kCountHelp, 0,
       "evaluatorCount", ApplyCount<kEvaluator>},
      {"evaluator-machine-type", kValue, "T", kRunAndSubmit, kMachines,
       kMachineTypeHelp, 0, "evaluatorType", ApplyMachineType<kEvaluator>},
      {"evaluator-accelerator", kValue, "count=N,type=T", kRunAndSubmit,
       kMachines, kAcceleratorHelp, 0, "evaluatorConfig.acceleratorConfig",
       ApplyAccelerator<kEvaluator>},
      {"use-chief-in-tf-config", kValue, "true|false", kRunAndSubmit, kMachines,
       "name the master `chief` in TF_CONFIG", 0, "useChiefInTfConfig",
       ApplyUseChief},

      {kLabelsFlag, kValue, "K=V[,K=V...]", kRunAndSubmit, kJobSection,
       "over the config's, e.g. team=vision,owner=ana; a key given replaces "
       "its value",
       0, "labels", ApplyLabels},

      {"max-trials", kValue, "N", kRunAndSubmit, kStudy,
       "the trials to run, N >= 1; with --resume-from, the new ones", 0,
       "maxTrials", ApplyStudyCount<&Budget::max_trials, 1>},
      {"max-parallel-trials", kValue, "N", kRunAndSubmit, kStudy,
       "trials at once, N >= 1", 0, "maxParallelTrials",
       ApplyStudyCount<&Budget::max_parallel_trials, 1>},
      {"max-failed-trials", kValue, "N", kRunAndSubmit, kStudy,
       "failed trials before the job fails, N >= 0", 0, "maxFailedTrials",
       ApplyStudyCount<&Budget::max_failed_trials, 0>},
      {"resume-from", kValue, "JOB", kRunAndSubmit, kStudy,
       "start from an ended job's results (its succeeded and infeasible "
       "trials)",
       0, "resumePreviousJobId", ApplyResumeFrom},
      {"early-stopping", kValue, "RULE", kRunAndSubmit, kStudy,
       EarlyStoppingHelp(), 0, "earlyStoppingRule", ApplyEarlyStopping},
  };
}

}  // namespace

const std::vector<FlagSpec>& SpecOverrideRows() {
  static const auto* const kRows = [] {
    auto* rows = new std::vector<FlagSpec>(OwnRows());
    for (FlagSpec& row : GcloudNameRows()) rows->push_back(row);
    return rows;
  }();
  return *kRows;
}

absl::Status ApplyOverrides(const ParsedArgs& args,
                            const std::filesystem::path& cwd, JobSpec& job) {
  for (const FlagSpec& flag : SpecOverrideRows()) {
    const std::string name(flag.name);
    if (!args.Has(name)) continue;
    if (!flag.same_as.empty() && args.Has(std::string(flag.same_as))) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " and --", std::string(flag.same_as),
                       " are one flag (gcloud's name and hptune's): give one"));
    }
    HPTUNE_RETURN_IF_ERROR(flag.apply({args, name, cwd, job}));
  }
  for (const std::string& arg : args.after_dashes) job.args.push_back(arg);
  return absl::OkStatus();
}

absl::StatusOr<JobSpec> CheckOverriddenJob(const JobSpec& job,
                                           bool from_config) {
  JobSpec checked = job;
  CompleteJob(checked);
  std::vector<FieldError> errors = ValidateJob(checked);
  // ValidateJob knows no rule: hptune's own rules check their settings.
  if (errors.empty()) errors = StoppingSettingsErrors(checked);
  if (!errors.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        from_config ? "the config with the command-line flags applied:\n"
                    : "the job given by the command-line flags:\n",
        FieldErrorsToStatus(errors).message()));
  }
  return checked;
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
