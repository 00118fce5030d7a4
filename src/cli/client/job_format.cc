#include "src/cli/client/job_format.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hptune/core/config.h"
#include "hptune/core/search_space.h"
#include "hptune/core/time.h"
#include "src/api/conversion.h"
#include "src/cli/client/proto_convert.h"
#include "src/cli/seeding_note.h"
#include "src/cli/trial_table.h"

namespace hptune::cli::client {
namespace {

// Shortest text that reads back to the same double, as trainers get it.
std::string Number(double v) { return ParameterValue::Double(v).ToString(); }

std::string Time(const google::protobuf::Timestamp& time) {
  auto t = api::OptionalTimestampFromProto(time);
  return t ? FormatRfc3339(*t) : "";
}

// `spec` and its conditional children, depth first (the order of trainer
// flags).
void AddParameterNames(const v1::ParameterSpec& spec,
                       std::vector<std::string>& names) {
  names.push_back(spec.parameter_name());
  for (const auto& child : spec.conditional_parameter_specs()) {
    AddParameterNames(child.parameter_spec(), names);
  }
}

// Every parameter of the job's (possibly conditional) space; a trial has
// values for only its active ones and leaves the others empty.
std::vector<std::string> ParameterNames(const v1::Job& job) {
  std::vector<std::string> names;
  for (const auto& p : job.training_input().hyperparameters().params()) {
    AddParameterNames(p, names);
  }
  // Trials may carry parameters the spec does not list (none today); show
  // them rather than drop them.
  std::set<std::string> known(names.begin(), names.end());
  std::set<std::string> extra;
  for (const auto& t : job.training_output().trials()) {
    for (const auto& [name, value] : t.hyperparameters()) {
      if (!known.contains(name)) extra.insert(name);
    }
  }
  names.insert(names.end(), extra.begin(), extra.end());
  return names;
}

std::string Parameters(const v1::HyperparameterOutput& trial,
                       const std::vector<std::string>& names) {
  std::vector<std::string> parts;
  for (const auto& name : names) {
    auto it = trial.hyperparameters().find(name);
    if (it != trial.hyperparameters().end()) {
      parts.push_back(absl::StrCat(name, "=", ForReading(it->second)));
    }
  }
  return absl::StrJoin(parts, ", ");
}

std::string Pool(int64_t count, const std::string& type,
                 const v1::ReplicaConfig& config, const std::string& what) {
  std::string text = absl::StrCat(count, " ", what, count == 1 ? "" : "s",
                                  type.empty() ? "" : " " + type);
  if (config.accelerator_config().count() > 0) {
    absl::StrAppend(&text, " (", config.accelerator_config().count(), "x ",
                    config.accelerator_config().type(), ")");
  }
  return text;
}

std::string Machines(const v1::TrainingInput& input) {
  const std::string tier =
      v1::TrainingInput::ScaleTier_Name(input.scale_tier());
  if (input.scale_tier() != v1::TrainingInput::CUSTOM) return tier;
  std::vector<std::string> pools = {
      Pool(1, input.master_type(), input.master_config(),
           input.use_chief_in_tf_config() ? "chief" : "master")};
  if (input.worker_count() > 0) {
    pools.push_back(Pool(input.worker_count(), input.worker_type(),
                         input.worker_config(), "worker"));
  }
  if (input.parameter_server_count() > 0) {
    pools.push_back(Pool(input.parameter_server_count(),
                         input.parameter_server_type(),
                         input.parameter_server_config(), "parameter server"));
  }
  if (input.evaluator_count() > 0) {
    pools.push_back(Pool(input.evaluator_count(), input.evaluator_type(),
                         input.evaluator_config(), "evaluator"));
  }
  return absl::StrCat(tier, ": ", absl::StrJoin(pools, ", "));
}

std::string Trainer(const v1::TrainingInput& input) {
  if (!input.command().empty()) return absl::StrJoin(input.command(), " ");
  if (input.python_module().empty()) return "(none)";
  return absl::StrCat("python3 -m ", input.python_module(),
                      input.package_path().empty()
                          ? ""
                          : " (from " + input.package_path() + ")");
}

std::string JobState(const v1::Job& job) {
  return v1::Job::State_Name(job.state());
}

std::string TrialCounts(const v1::Job& job) {
  const auto& output = job.training_output();
  std::string text = absl::StrCat(output.completed_trial_count());
  if (job.training_input().has_hyperparameters()) {
    absl::StrAppend(&text, "/",
                    job.training_input().hyperparameters().max_trials() > 0
                        ? job.training_input().hyperparameters().max_trials()
                        : 1);
  }
  return text;
}

int ObjectiveCount(const v1::Job& job) {
  int objectives = 0;
  for (const auto& m : job.training_input().hyperparameters().metrics()) {
    if (!m.has_safety_threshold()) ++objectives;
  }
  return objectives;
}

std::string Best(const v1::Job& job) {
  const auto& output = job.training_output();
  if (ObjectiveCount(job) > 1) {
    if (output.optimal_trial_ids().empty()) return "";
    return absl::StrCat(output.optimal_trial_ids_size(), " optimal");
  }
  if (!output.has_best_trial() || !output.best_trial().has_final_metric()) {
    return "";
  }
  return absl::StrCat(
      Number(output.best_trial().final_metric().objective_value()), " (trial ",
      output.best_trial().trial_id(), ")");
}

// The job's own sbatch options as sbatch takes them, e.g.
// "--partition=gpu --time=2:00:00 --qos=high".
std::string SbatchOptions(const v1::SlurmOptions& slurm) {
  std::vector<std::string> words;
  if (!slurm.partition().empty()) {
    words.push_back("--partition=" + slurm.partition());
  }
  if (!slurm.account().empty()) words.push_back("--account=" + slurm.account());
  if (!slurm.time().empty()) words.push_back("--time=" + slurm.time());
  words.insert(words.end(), slurm.options().begin(), slurm.options().end());
  return absl::StrJoin(words, " ");
}

std::string TimeLimits(const v1::Scheduling& scheduling) {
  auto text = [](const google::protobuf::Duration& d) {
    return FormatDurationSeconds(
        std::chrono::microseconds(d.seconds() * 1'000'000 + d.nanos() / 1000));
  };
  std::vector<std::string> limits;
  if (scheduling.has_max_wait_time()) {
    limits.push_back("waits at most " + text(scheduling.max_wait_time()));
  }
  if (scheduling.has_max_running_time()) {
    limits.push_back("runs at most " + text(scheduling.max_running_time()));
  }
  return limits.empty() ? "none" : absl::StrJoin(limits, ", ");
}

}  // namespace

std::string MetricTag(const v1::Job& job) {
  const auto& spec = job.training_input().hyperparameters();
  if (spec.has_hyperparameter_metric_tag()) {
    return spec.hyperparameter_metric_tag();
  }
  if (!job.training_output().hyperparameter_metric_tag().empty()) {
    return job.training_output().hyperparameter_metric_tag();
  }
  return "training/hptuning/metric";
}

std::string JobLabelsText(const v1::Job& job) {
  std::map<std::string, std::string> sorted(job.labels().begin(),
                                            job.labels().end());
  return absl::StrJoin(sorted, ", ", absl::PairFormatter("="));
}

std::string JobJson(const v1::Job& job) { return MessageToJson(job, true); }

Table JobTrialsTable(const v1::Job& job) {
  static const std::set<std::string> kFixed = {
      "trialId",      "state",     "objective", "step",
      "stoppedEarly", "startTime", "endTime",   "error"};
  const std::vector<std::string> names = ParameterNames(job);
  Table table;
  table.header = {"trialId", "state"};
  for (const auto& name : names) {
    table.header.push_back(kFixed.contains(name) ? "hyperparameters." + name
                                                 : name);
  }
  // A study of several metrics: one column each, and which are optimal.
  std::vector<std::string> metrics;
  for (const auto& m : job.training_input().hyperparameters().metrics()) {
    metrics.push_back(m.metric_id());
  }
  std::set<std::string> taken = kFixed;
  taken.insert(names.begin(), names.end());
  table.header.push_back("objective");
  for (const std::string& id : metrics) {
    if (id == MetricTag(job)) continue;  // Shown as objective.
    table.header.push_back(taken.contains(id) ? "metrics." + id : id);
  }
  if (!metrics.empty()) table.header.push_back("optimal");
  for (const char* column :
       {"step", "stoppedEarly", "startTime", "endTime", "error"}) {
    table.header.push_back(column);
  }
  for (const auto& t : job.training_output().trials()) {
    std::vector<std::string> row = {t.trial_id(),
                                    v1::Job::State_Name(t.state())};
    for (const auto& name : names) {
      auto it = t.hyperparameters().find(name);
      row.push_back(it == t.hyperparameters().end() ? "" : it->second);
    }
    // A trial still running shows its latest report (its state says so).
    const v1::HyperparameterMetric* shown =
        t.has_final_metric()       ? &t.final_metric()
        : t.all_metrics_size() > 0 ? &t.all_metrics(t.all_metrics_size() - 1)
                                   : nullptr;
    row.push_back(shown ? Number(shown->objective_value()) : "");
    for (const std::string& id : metrics) {
      if (id == MetricTag(job)) continue;
      auto it = t.final_metrics().find(id);
      row.push_back(it == t.final_metrics().end() ? "" : Number(it->second));
    }
    if (!metrics.empty()) row.push_back(t.is_optimal() ? "*" : "");
    row.push_back(shown ? absl::StrCat(shown->training_step()) : "");
    row.push_back(t.is_trial_stopped_early() ? "true" : "false");
    row.push_back(Time(t.start_time()));
    row.push_back(Time(t.end_time()));
    row.push_back(t.error_message());
    table.rows.push_back(std::move(row));
  }
  return table;
}

void PrintJobSummary(const v1::Job& job, std::ostream& out) {
  const v1::TrainingInput& input = job.training_input();
  out << "job:        " << job.job_id() << "\n"
      << "state:      " << JobState(job)
      << (job.error_message().empty() ? "" : ": " + job.error_message()) << "\n"
      << "created:    " << Time(job.create_time()) << "\n";
  if (job.has_start_time())
    out << "started:    " << Time(job.start_time()) << "\n";
  if (job.has_end_time()) out << "ended:      " << Time(job.end_time()) << "\n";
  if (!job.labels().empty())
    out << "labels:     " << JobLabelsText(job) << "\n";
  out << "trainer:    " << Trainer(input) << "\n";
  if (!input.args().empty()) {
    out << "args:       " << absl::StrJoin(input.args(), " ") << "\n";
  }
  out << "machines:   " << Machines(input) << "\n";
  if (!input.job_dir().empty())
    out << "job dir:    " << input.job_dir() << "\n";
  if (job.has_slurm())
    out << "slurm:      " << SbatchOptions(job.slurm()) << "\n";
  if (input.has_scheduling()) {
    out << "limits:     " << TimeLimits(input.scheduling()) << "\n";
  }
  if (input.has_hyperparameters()) {
    const v1::StudySpec& spec = input.hyperparameters();
    const absl::StatusOr<StudySpec> core =
        api::StudySpecFromProto(spec, "spec");
    if (core.ok() && core->metrics_listed()) {
      out << "metrics:    " << MetricsText(*core) << "\n";
    } else {
      out << "objective:  "
          << (spec.goal() == v1::StudySpec::MINIMIZE ? "MINIMIZE" : "MAXIMIZE")
          << " " << MetricTag(job) << "\n";
    }
    int running = 0, queued = 0;
    for (const auto& t : job.training_output().trials()) {
      if (t.state() == v1::Job::RUNNING) ++running;
      if (t.state() == v1::Job::QUEUED) ++queued;
    }
    out << "trials:     " << job.training_output().completed_trial_count()
        << " completed of " << (spec.max_trials() > 0 ? spec.max_trials() : 1)
        << ", " << running << " running, ";
    if (queued > 0) out << queued << " queued, ";
    out << "at most "
        << (spec.max_parallel_trials() > 0 ? spec.max_parallel_trials() : 1)
        << " in parallel\n";
    if (core.ok()) {
      if (const std::string seeding = SeedingNote(*core); !seeding.empty()) {
        out << "seeding:    " << seeding << "\n";
      }
    }
  }
  if (job.training_output().trials().empty()) return;
  out << "\n";
  PrintTable(
      WithoutEmptyColumns(JobTrialsTable(job), {"stoppedEarly", "error"}),
      OutputFormat::kTable, out);
  const auto& output = job.training_output();
  if (ObjectiveCount(job) > 1) {
    if (!output.optimal_trial_ids().empty()) {
      out << "\noptimal trials (the feasible Pareto front): "
          << absl::StrJoin(output.optimal_trial_ids(), ", ") << "\n";
    }
  } else if (output.has_best_trial() &&
             output.best_trial().has_final_metric()) {
    const auto& best = output.best_trial();
    out << "\nbest trial: " << best.trial_id() << ", " << MetricTag(job) << " "
        << ForReading(Number(best.final_metric().objective_value()))
        << " at step " << best.final_metric().training_step() << "; "
        << Parameters(best, ParameterNames(job)) << "\n";
  }
}

Table JobsTable(const std::vector<v1::Job>& jobs) {
  Table table;
  table.header = {"jobId", "state", "created", "trials", "best", "error"};
  for (const v1::Job& job : jobs) {
    table.rows.push_back({job.job_id(), JobState(job), Time(job.create_time()),
                          TrialCounts(job), Best(job), job.error_message()});
  }
  return table;
}

std::string DescribeJobEvent(const v1::JobEvent& event,
                             const std::string& metric) {
  if (event.has_job()) {
    const v1::Job& job = event.job();
    std::string line = absl::StrCat("job ", job.job_id(), " ", JobState(job));
    if (job.training_input().has_hyperparameters()) {
      absl::StrAppend(&line, ", trials ", TrialCounts(job), " completed");
      if (std::string best = Best(job); !best.empty()) {
        absl::StrAppend(&line, ", best ", metric, " ", best);
      }
    }
    if (!job.error_message().empty()) {
      absl::StrAppend(&line, ": ", job.error_message());
    }
    return line;
  }
  const v1::HyperparameterOutput& t = event.trial();
  std::string line =
      absl::StrCat("trial ", t.trial_id(), " ", v1::Job::State_Name(t.state()));
  if (t.has_final_metric()) {
    absl::StrAppend(&line, ": ", metric, "=",
                    Number(t.final_metric().objective_value()), " at step ",
                    t.final_metric().training_step());
  }
  if (t.is_trial_stopped_early()) absl::StrAppend(&line, ", stopped early");
  std::vector<std::string> parts;
  for (const auto& [name, value] : t.hyperparameters()) {
    parts.push_back(absl::StrCat(name, "=", value));
  }
  std::sort(parts.begin(), parts.end());
  if (!parts.empty())
    absl::StrAppend(&line, " (", absl::StrJoin(parts, ", "), ")");
  if (!t.error_message().empty())
    absl::StrAppend(&line, ": ", t.error_message());
  return line;
}

absl::Status ApplyJobsFilter(const std::string& filter,
                             v1::ListJobsRequest& request) {
  for (absl::string_view term :
       absl::StrSplit(filter, ' ', absl::SkipWhitespace())) {
    std::pair<std::string, std::string> kv =
        absl::StrSplit(term, absl::MaxSplits('=', 1));
    auto bad = [&](const std::string& why) {
      return absl::InvalidArgumentError(
          absl::StrCat("--filter: ", why, ", got \"", std::string(term),
                       "\" (expected state=STATE[,STATE...], jobId=PREFIX* or "
                       "labels.KEY=VALUE)"));
    };
    if (kv.first == "state") {
      for (absl::string_view name : absl::StrSplit(kv.second, ',')) {
        v1::Job::State state;
        if (!v1::Job::State_Parse(std::string(name), &state) ||
            state == v1::Job::STATE_UNSPECIFIED) {
          return bad(
              absl::StrCat("unknown state \"", std::string(name),
                           "\": QUEUED, PREPARING, RUNNING, SUCCEEDED, FAILED, "
                           "CANCELLING or CANCELLED"));
        }
        request.add_states(state);
      }
    } else if (kv.first == "jobId") {
      std::string prefix = kv.second;
      if (!prefix.empty() && prefix.back() == '*') prefix.pop_back();
      if (prefix.empty() || prefix.find('*') != std::string::npos) {
        return bad("jobId takes a prefix");
      }
      request.set_job_id_prefix(prefix);
    } else if (absl::StartsWith(kv.first, "labels.")) {
      const std::string key = kv.first.substr(std::string("labels.").size());
      if (term.find('=') == absl::string_view::npos) {
        return bad("a label takes a value (* for any)");
      }
      const JobLabels as_label = {{key, kv.second == "*" ? "" : kv.second}};
      if (std::vector<FieldError> errors = ValidateJobLabels(as_label, "");
          !errors.empty()) {
        return bad(errors.front().message);
      }
      if (!request.mutable_labels()->try_emplace(key, kv.second).second) {
        return bad(absl::StrCat("label \"", key, "\" given twice"));
      }
    } else {
      return bad(absl::StrCat("unknown key \"", kv.first, "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace hptune::cli::client
