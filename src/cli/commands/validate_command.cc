// `hptune validate`: parse a config with the builtin machine catalogue and
// show the job it describes, or every error in it.
#include "src/cli/commands/validate_command.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "hptune/core/machine_types.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"
#include "hptune/env/env.h"
#include "hptune/launch/trainer_check.h"
#include "hptune/runner/config_file.h"
#include "src/cli/flags.h"
#include "src/cli/output.h"
#include "src/cli/seeding_note.h"
#include "src/cli/stopping_rules.h"

namespace hptune::cli {
namespace {

constexpr char kValidateUsage[] =
    "usage: hptune validate CONFIG [--job-id ID]\n"
    "\n"
    "Checks a job config (AI Platform's trainingInput, YAML or JSON by the\n"
    "file's extension) and prints the job it describes, or every error in it,\n"
    "one per line.\n"
    "\n"
    "  --job-id ID   also check the job ID (letters, digits and underscores,\n"
    "                starting with a letter, at most 128 characters)\n"
    "\n"
    "Exit codes: 0 valid, 2 invalid or unreadable config, 64 bad usage.\n";

int UsageError(const std::string& message, std::ostream& err) {
  err << "hptune validate: " << message << "\n\n" << kValidateUsage;
  return kExitUsage;
}

// The file's text, read through `env`, or an error message.
bool ReadFile(Env& env, const std::string& path, std::string* text,
              std::string* error) {
  if (absl::StatusOr<FileInfo> info = env.InfoOf(path, Links::kFollow);
      info.ok() && info->type == FileType::kDirectory) {
    *error = "cannot read " + path + ": it is a directory";
    return false;
  }
  absl::StatusOr<std::string> read = env.ReadFile(path);
  if (!read.ok()) {
    // The reason alone, after Env's "cannot open PATH: ".
    std::string reason(read.status().message());
    const std::string said = "cannot open " + path + ": ";
    if (reason.starts_with(said)) reason.erase(0, said.size());
    *error = absl::StrCat("cannot read ", path, ": ", reason);
    return false;
  }
  *text = *std::move(read);
  return true;
}

bool EndsWith(std::string text, const std::string& suffix) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Join(const std::vector<std::string>& words,
                 const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += sep;
    out += words[i];
  }
  return out;
}

// Shortest text that reads back to `value`, as trainers receive it.
std::string Number(double value) {
  return ParameterValue::Double(value).ToString();
}

std::string Gpus(const AcceleratorConfig& gpus, bool included) {
  if (gpus.count == 0) return "-";
  return std::to_string(gpus.count) + " x " + gpus.type +
         (included ? " (built in)" : "");
}

void PrintField(const std::string& name, const std::string& value,
                std::ostream& out) {
  out << "  " << name
      << std::string(18 - std::min<size_t>(name.size(), 17), ' ') << value
      << "\n";
}

std::string Indent(const std::string& text) {
  std::string out = "  ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  if (out.size() >= 2 && out.compare(out.size() - 2, 2, "  ") == 0) {
    out.resize(out.size() - 2);
  }
  return out;
}

void PrintReplicas(const JobSpec& job, std::ostream& out) {
  const MachineCatalogue& catalogue = MachineCatalogue::Builtin();
  Table table{.header = {"TASK", "COUNT", "MACHINE TYPE", "VCPUS", "MEMORY",
                         "GPUS PER REPLICA"}};
  for (TaskType task : kTaskTypes) {
    const TaskPool& pool = job.pool(task);
    if (pool.count == 0) continue;
    const MachineType* machine = catalogue.Find(pool.machine_type);
    const AcceleratorConfig gpus = catalogue.GpusPerReplica(pool);
    const bool included =
        machine != nullptr && machine->included_gpus.count > 0;
    table.rows.push_back({std::string(ToString(task)),
                          std::to_string(pool.count),
                          pool.machine_type.empty() ? "-" : pool.machine_type,
                          machine ? std::to_string(machine->vcpus) : "-",
                          machine ? Number(machine->memory_gb) + " GB" : "-",
                          Gpus(gpus, included)});
  }
  std::ostringstream text;
  PrintTable(table, OutputFormat::kTable, text);
  out << "Replicas\n" << Indent(text.str());
}

std::string TimeLimitsText(const SchedulingSpec& scheduling) {
  std::vector<std::string> limits;
  if (scheduling.max_wait_time) {
    limits.push_back("cancelled if no trial runs within " +
                     FormatDurationSeconds(*scheduling.max_wait_time));
  }
  if (scheduling.max_running_time) {
    limits.push_back("cancelled after running " +
                     FormatDurationSeconds(*scheduling.max_running_time));
  }
  return limits.empty() ? "(none)" : Join(limits, "; ");
}

// "image python:3.11: python3 -m m (packages a, b)" or "image x: cmd args".
std::string ContainerText(const TaskPool& pool) {
  const ContainerSpec& c = pool.container;
  std::string text = "image " + c.image_uri;
  if (!c.python_module.empty()) {
    text += ": python3 -m " + c.python_module;
    if (!c.package_uris.empty()) {
      text += " (packages " + Join(c.package_uris, ", ") + ")";
    }
  } else if (!c.command.empty()) {
    text += ": " + Join(c.command, " ");
  }
  if (!c.args.empty()) text += " " + Join(c.args, " ");
  return text;
}

void PrintJob(const std::string& path, const JobSpec& job, std::ostream& out) {
  out << path << ": valid\n\nJob\n";
  PrintField("job ID", job.job_id.empty() ? "(not set)" : job.job_id, out);
  if (!job.display_name.empty())
    PrintField("display name", job.display_name, out);
  PrintField("dialect", std::string(ToString(job.dialect)), out);
  std::vector<std::string> labels;
  for (const auto& [key, value] : job.labels)
    labels.push_back(key + "=" + value);
  PrintField("labels", labels.empty() ? "(none)" : Join(labels, ", "), out);
  PrintField("scale tier", std::string(ToString(job.scale_tier)), out);
  std::string trainer = "(not set: give it on the command line)";
  if (!job.module_name.empty()) {
    trainer = TrainerProgram(job) + " -m " + job.module_name;
    if (!job.package_path.empty())
      trainer += " (package " + job.package_path + ")";
  } else if (!job.command.empty()) {
    std::vector<std::string> command = job.command;
    command.front() = TrainerProgram(job);
    trainer = Join(command, " ");
  }
  if (!job.master.container.empty()) trainer = ContainerText(job.master);
  PrintField("trainer", trainer, out);
  PrintField("args", job.args.empty() ? "(none)" : Join(job.args, " "), out);
  PrintField("job dir", job.job_dir.empty() ? "(not set)" : job.job_dir, out);
  if (job.use_chief_in_tf_config)
    PrintField("TF_CONFIG", "master is named chief", out);
  if (!job.base_output_directory.empty()) {
    PrintField("output directory", job.base_output_directory, out);
  }
  PrintField("time limits", TimeLimitsText(job.scheduling), out);
  out << "\n";
  PrintReplicas(job, out);
}

// "off", or "on, RULE", with the rule's settings where given.
std::string StoppingText(const StudySpec& study) {
  if (!study.enable_early_stopping) return "off";
  std::string text = absl::StrCat("on, ", study.EffectiveStoppingRule());
  std::vector<std::string> settings;
  for (const auto& [name, value] : study.stopping_settings.values) {
    std::string shown = std::visit(
        [](const auto& v) -> std::string {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, bool>) {
            return v ? "true" : "false";
          } else {
            return absl::StrCat(v);
          }
        },
        value);
    settings.push_back(absl::StrCat(name, " ", shown));
  }
  if (!settings.empty()) {
    absl::StrAppend(&text, " (", absl::StrJoin(settings, ", "), ")");
  }
  return text;
}

std::string AlgorithmText(Algorithm algorithm) {
  const std::string name(ToString(algorithm));
  switch (algorithm) {
    case Algorithm::kUnspecified:
      // Say what really runs (algorithms/registry.cc).
      return name + " (hptune's default: Gaussian process BO)";
    case Algorithm::kGridSearch:
      return name + " (every combination, in order)";
    case Algorithm::kRandomSearch:
      return name + " (uniform in the scaled space)";
    case Algorithm::kQuasiRandomSearch:
      return name + " (Halton sequence)";
    case Algorithm::kMultiFidelityGp:
      return name + " (GP reading stopped trials at forecast finals)";
  }
  return name;
}

// What a parameter can take: [min, max] or {values}; long lists shortened.
// "optimizer = sgd" or "layers in {2, 3}"; "-" for a root parameter.
std::string ConditionText(const ParameterSpec& p) {
  if (!p.condition) return "-";
  const ParentCondition& c = *p.condition;
  std::vector<std::string> values = c.categorical_values;
  for (double v : c.discrete_values) values.push_back(Number(v));
  for (int64_t v : c.int_values) {
    values.push_back(ParameterValue::Integer(v).ToString());
  }
  if (values.size() == 1) return c.parent + " = " + values.front();
  std::string text = c.parent + " in {";
  for (size_t k = 0; k < values.size(); ++k) {
    text += (k ? ", " : "") + values[k];
  }
  return text + "}";
}

std::string RangeText(const ParameterSpec& p) {
  constexpr size_t kShown = 8;
  std::vector<std::string> values;
  switch (p.type) {
    case ParameterType::kDouble:
      return "[" + Number(p.min_value) + ", " + Number(p.max_value) + "]";
    case ParameterType::kInteger:
      return "[" +
             ParameterValue::Integer(static_cast<int64_t>(p.min_value))
                 .ToString() +
             ", " +
             ParameterValue::Integer(static_cast<int64_t>(p.max_value))
                 .ToString() +
             "]";
    case ParameterType::kDiscrete:
      for (double v : p.discrete_values) values.push_back(Number(v));
      break;
    case ParameterType::kCategorical:
      values = p.categorical_values;
      break;
  }
  const size_t total = values.size();
  if (total > kShown) {
    values.resize(kShown);
    values.push_back("... (" + std::to_string(total) + " values)");
  }
  return "{" + Join(values, ", ") + "}";
}

void PrintStudy(const JobSpec& job, std::ostream& out) {
  out << "\nStudy\n";
  if (!job.study) {
    out << "  none: one training run, no hyperparameters\n";
    return;
  }
  const StudySpec& study = *job.study;
  PrintField("goal",
             std::string(ToString(study.goal())) + " " + study.metric_tag(),
             out);
  std::string budget =
      std::to_string(study.max_trials) + " trials, " +
      std::to_string(study.max_parallel_trials) + " in parallel, stop after " +
      std::to_string(study.EffectiveMaxFailedTrials()) + " failed";
  if (study.max_failed_trials == 0) budget += " (maxFailedTrials 0's default)";
  PrintField("budget", budget, out);
  PrintField("algorithm", AlgorithmText(study.algorithm), out);
  if (const std::string seeding = SeedingNote(study); !seeding.empty()) {
    PrintField("seeding", seeding, out);
  }
  PrintField("early stopping", StoppingText(study), out);
  if (study.trial_lease_seconds) {
    PrintField("trial lease",
               absl::StrCat(*study.trial_lease_seconds, " s (ask/tell)"), out);
  }
  if (!study.resume_previous_job_id.empty()) {
    PrintField("resumes", study.resume_previous_job_id, out);
  }
  if (study.seed) PrintField("seed", std::to_string(*study.seed), out);

  // A conditional space prints as its tree: a child indented under its
  // parent (the flat order is depth-first), with the values that activate it.
  const SearchSpace& space = study.search_space;
  const bool tree = space.IsConditional();
  Table table{.header = {"PARAMETER", "TYPE", "RANGE", "SCALE"}};
  if (tree) table.header.push_back("ACTIVE WHEN");
  for (int i = 0; i < static_cast<int>(space.parameters().size()); ++i) {
    const ParameterSpec& p = space.parameters()[i];
    int depth = 0;
    for (int a = space.ParentIndex(i); a >= 0; a = space.ParentIndex(a)) {
      ++depth;
    }
    table.rows.push_back({std::string(2 * depth, ' ') + p.name,
                          std::string(ToString(p.type)), RangeText(p),
                          p.type == ParameterType::kCategorical
                              ? "-"
                              : std::string(ToString(p.scale))});
    if (tree) table.rows.back().push_back(ConditionText(p));
  }
  std::ostringstream text;
  PrintTable(table, OutputFormat::kTable, text);
  out << "\nParameters\n" << Indent(text.str());
}

}  // namespace

int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err) {
  for (const std::string& arg : args) {
    if (arg == "-h" || arg == "--help") {
      out << kValidateUsage;
      return kExitOk;
    }
  }
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, {"job-id"}, {});
  if (!parsed.ok())
    return UsageError(std::string(parsed.status().message()), err);
  for (const std::string& word : parsed->positional) {
    if (word.size() > 1 && word[0] == '-')
      return UsageError("unknown flag " + word, err);
  }
  if (!parsed->after_dashes.empty()) {
    return UsageError("unexpected argument " + parsed->after_dashes.front(),
                      err);
  }
  if (parsed->positional.empty()) return UsageError("missing CONFIG", err);
  if (parsed->positional.size() > 1) {
    return UsageError("unexpected argument " + parsed->positional[1], err);
  }
  const std::string& path = parsed->positional.front();
  const std::string job_id = parsed->Get("job-id").value_or("");

  std::string text;
  std::string read_error;
  if (!ReadFile(DefaultEnv(), path, &text, &read_error)) {
    err << "hptune validate: " << read_error << "\n";
    return kExitInvalid;
  }
  const ConfigFormat format =
      EndsWith(path, ".json") ? ConfigFormat::kJson : ConfigFormat::kYaml;
  ConfigParseResult result = ParseJobConfig(text, format, job_id);
  if (result.errors.empty() && result.job) {
    result.errors = StoppingSettingsErrors(*result.job);
  }
  if (!result.errors.empty()) {
    for (const FieldError& error : result.errors)
      err << error.ToString() << "\n";
    err << path << ": " << result.errors.size()
        << (result.errors.size() == 1 ? " error" : " errors") << "\n";
    return kExitInvalid;
  }
  // Without a working directory the paths stay as written.
  runner::ResolveConfigPaths(
      DefaultEnv(), DefaultEnv().Absolute(path).value_or(path).parent_path(),
      *result.job);
  // What `hptune run` would refuse on this machine before launching.
  // A master in a container has no host trainer to check.
  if (result.backend.backend == "local" &&
      result.job->master.container.empty()) {
    if (absl::Status trainer = launch::CheckTrainer(DefaultEnv(), *result.job);
        !trainer.ok()) {
      err << trainer.message() << "\n" << path << ": 1 error\n";
      return kExitInvalid;
    }
  }
  PrintJob(path, *result.job, out);
  PrintStudy(*result.job, out);
  if (const std::string note = IgnoredFieldsNote(result.ignored_fields);
      !note.empty()) {
    err << note << "\n";
  }
  if (result.job->study) {
    if (std::string warning = SeedingWarning(*result.job->study);
        !warning.empty()) {
      // It starts with the field, "maxTrials", which Vertex names otherwise.
      if (result.job->dialect == SpecDialect::kVertex) {
        warning.replace(0, std::string_view("maxTrials").size(),
                        "maxTrialCount");
      } else {
        warning = "trainingInput.hyperparameters." + warning;
      }
      err << "warning: " << warning << "\n";
    }
  }
  return kExitOk;
}

}  // namespace hptune::cli
