#include "src/cli/commands/run_command.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hptune/algorithms/stopping_registry.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/engine/engine.h"
#include "hptune/env/env.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/launch/slurm_launcher.h"
#include "hptune/launch/trainer_check.h"
#include "hptune/runner/config_file.h"
#include "hptune/runner/job_runner.h"
#include "hptune/store/open_store.h"
#include "hptune/store/store.h"
#include "src/cli/backend_flags.h"
#include "src/cli/flag_table.h"
#include "src/cli/flags.h"
#include "src/cli/gcloud_flags.h"
#include "src/cli/lease_watch.h"
#include "src/cli/output.h"
#include "src/cli/progress.h"
#include "src/cli/python_interpreter.h"
#include "src/cli/runner_flags.h"
#include "src/cli/runtime.h"
#include "src/cli/savings_line.h"
#include "src/cli/seeding_note.h"
#include "src/cli/spec_overrides.h"
#include "src/cli/trial_table.h"
#include "src/jobs/draining_launcher.h"
#include "src/jobs/take_over.h"

namespace hptune::cli {
namespace {

constexpr char kUsageLine[] =
    "usage: hptune run CONFIG [flags] [-- USER_ARGS...]\n"
    "       hptune run [JOB] --config CONFIG [flags] [-- USER_ARGS...]\n";
constexpr char kUsageHead[] =
    "\n"
    "Runs a tuning job from here: each trial's replicas as local processes\n"
    "(or as tasks of a Slurm job), every result in a SQLite file. Shows\n"
    "progress, then the trials and the best. Ctrl-C cancels the job: every\n"
    "replica is stopped, the trials are recorded CANCELLED. Run again with\n"
    "the same --job-id and --db to resume a job whose runner died: its\n"
    "running trials are picked up where they are (Slurm jobs are reattached,\n"
    "not launched twice). To go on after a job ended (Ctrl-C, or more\n"
    "trials), run a new job that starts from its results: --job-id NEW\n"
    "--resume-from OLD (then --max-trials counts the new trials only).\n"
    "USER_ARGS are appended to the config's args.\n"
    "\n";
constexpr char kUsageTail[] =
    "\n"
    "Exit codes: 0 job succeeded, 1 job failed (or cancelled by a\n"
    "trainingInput.scheduling time limit), or the runner lease was lost\n"
    "(a PostgreSQL --db ended its session: the trainers are stopped, the\n"
    "job stays resumable), 2 invalid config or flags,\n"
    "64 bad usage, 69 Slurm unusable (commands missing, controller down),\n"
    "75 the database is held by hptune serve or the job by a live hptune\n"
    "run, 130 cancelled (Ctrl-C; the job is cancelled first).\n";

// The flags' part comes from the flag table (flag_table.h).
std::string Usage() {
  return absl::StrCat(kUsageLine, kUsageHead, FlagUsage(kRunCommand),
                      kUsageTail);
}

// A usage error: the message and how to see the flags, not all of them.
int RunUsageError(const std::string& message, std::ostream& err) {
  err << "hptune run: " << message << "\n"
      << kUsageLine << "`hptune run --help` lists every flag\n";
  return kExitUsage;
}

// gcloud's form, `JOB --config FILE`, as the form hptune's own commands
// read on: CONFIG first, the ID in --job-id. A usage error's message when
// the two forms are mixed.
std::optional<std::string> TakeGcloudForm(ParsedArgs& args) {
  const std::optional<std::string> config = args.Get("config");
  if (!config) return std::nullopt;
  if (args.positional.size() > 1) {
    return absl::StrCat("with --config, expected at most one JOB, got ",
                        args.positional.size(), " arguments");
  }
  if (args.positional.size() == 1) {
    if (args.Has("job-id")) {
      return "the job's ID given twice: as JOB and as --job-id";
    }
    args.flags["job-id"] = args.positional.front();
  }
  args.positional = {*config};
  return std::nullopt;
}

// sysexits EX_UNAVAILABLE: the backend cannot be reached.
constexpr int kExitUnavailable = 69;
// The database is served by `hptune serve` (sysexits EX_TEMPFAIL).
constexpr int kExitDatabaseBusy = 75;

constexpr int kExitCancelled = 130;

std::atomic<bool> g_cancel{false};

extern "C" void OnInterrupt(int) {
  g_cancel.store(true);
  // A second Ctrl-C kills at once.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

int FailRun(const absl::Status& status, std::ostream& err) {
  err << "hptune run: " << status.message() << "\n";
  if (absl::IsInvalidArgument(status) || absl::IsFailedPrecondition(status) ||
      absl::IsAlreadyExists(status) || absl::IsNotFound(status) ||
      absl::IsPermissionDenied(status)) {
    return kExitInvalid;
  }
  return kExitFailure;
}

std::string DefaultJobId(const std::string& config_path, Timestamp now) {
  std::string stem = std::filesystem::path(config_path).stem().string();
  std::string id;
  for (char c : stem)
    id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || !std::isalpha(static_cast<unsigned char>(id[0]))) {
    id = "job_" + id;
  }
  // e.g. config_20261121_103000 from 2026-11-21T10:30:00Z.
  std::string stamp = FormatRfc3339(now).substr(0, 19);
  std::string digits;
  for (char c : stamp) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    if (c == 'T') digits += '_';
  }
  return absl::StrCat(id.substr(0, 100), "_", digits);
}

// hptune run's engine knows hptune's rules alone (stopping_registry.h).
absl::Status CheckStoppingRuleKnown(const JobSpec& job, bool from_flag) {
  if (!job.study || !job.study->enable_early_stopping) return absl::OkStatus();
  const algorithms::StoppingRuleRegistry rules =
      algorithms::StoppingRuleRegistry::WithBuiltins();
  const std::string& rule = job.study->EffectiveStoppingRule();
  if (rules.Contains(rule)) return absl::OkStatus();
  const char* field = from_flag ? "--early-stopping"
                      : job.dialect == SpecDialect::kVertex
                          ? "studySpec.earlyStoppingRule"
                          : "trainingInput.hyperparameters.earlyStoppingRule";
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": hptune has no early-stopping rule \"", rule,
                   "\"; its rules: ", absl::StrJoin(rules.Names(), ", ")));
}

// Applies the flags that override the config, as `jobs submit` does, and
// checks the result as a config.
absl::Status ApplyFlags(const ParsedArgs& args, JobSpec& job) {
  HPTUNE_ASSIGN_OR_RETURN(const std::filesystem::path working_dir,
                          DefaultEnv().WorkingDirectory());
  HPTUNE_RETURN_IF_ERROR(ApplyOverrides(args, working_dir, job));
  HPTUNE_ASSIGN_OR_RETURN(job, CheckOverriddenJob(job, /*from_config=*/true));
  return CheckStoppingRuleKnown(job, args.Has("early-stopping"));
}

absl::StatusOr<runner::JobRunnerOptions> RunnerOptions(const ParsedArgs& args) {
  runner::JobRunnerOptions options;
  options.runs_dir = StateDirFlag(args, "runs-dir");
  HPTUNE_RETURN_IF_ERROR(ApplyReplicaFlags(args, options));
  HPTUNE_ASSIGN_OR_RETURN(options.gcs_root, GcsRootFlag(args, DefaultEnv()));
  options.cancel = &g_cancel;
  return options;
}

// The command line; the exit code instead when there is nothing to run
// (--help, or a usage error, written to `err`).
std::variant<ParsedArgs, int> ParseCommandLine(
    const std::vector<std::string>& args, std::ostream& out,
    std::ostream& err) {
  auto parsed = ParseFlags(args, kRunCommand);
  if (!parsed.ok())
    return RunUsageError(std::string(parsed.status().message()), err);
  if (parsed->Has("help")) {
    out << Usage();
    return kExitOk;
  }
  if (std::optional<std::string> mixed = TakeGcloudForm(*parsed)) {
    return RunUsageError(*mixed, err);
  }
  if (parsed->positional.size() != 1) {
    return RunUsageError(absl::StrCat("expected one CONFIG file, got ",
                                      parsed->positional.size(), " arguments"),
                         err);
  }
  WriteIgnoredGcloudFlagsNote(*parsed, kRunCommand, "hptune run: ", err);
  return *std::move(parsed);
}

// The job the config file and the flags over it describe, with its backend
// and the runner's options, checked as far as can be before anything runs.
struct PreparedJob {
  LoadedConfig config;
  runner::JobRunnerOptions options;
  RuntimeOptions runtime;   // The database, the runs directory, the lease.
  std::string python_line;  // Which Python runs the trainer; "" for none.
};

absl::StatusOr<PreparedJob> PrepareJob(const ParsedArgs& args,
                                       RepeatedSlurmFlags slurm_flags) {
  const std::string& config = args.positional.front();
  const std::string job_id =
      args.Get("job-id").value_or(DefaultJobId(config, DefaultEnv().Now()));
  HPTUNE_ASSIGN_OR_RETURN(LoadedConfig loaded,
                          runner::LoadConfigFile(DefaultEnv(), config, job_id));
  HPTUNE_ASSIGN_OR_RETURN(const std::filesystem::path config_path,
                          DefaultEnv().Absolute(config));
  runner::ResolveConfigPaths(DefaultEnv(), config_path.parent_path(),
                             loaded.job);
  HPTUNE_RETURN_IF_ERROR(ApplyFlags(args, loaded.job));
  std::string python_line = ChoosePythonInterpreter(DefaultEnv(), loaded.job,
                                                    std::getenv("VIRTUAL_ENV"));
  HPTUNE_ASSIGN_OR_RETURN(runner::JobRunnerOptions options,
                          RunnerOptions(args));
  RuntimeOptions runtime = RuntimeOptionsFromFlags(StoreUse::kRunJobs, args,
                                                   ProcessEnv(), "runs-dir");
  runtime.job_id = loaded.job.job_id;
  runtime.reap_orphans = true;
  if (std::optional<RuntimeError> e = CheckRuntimePaths(runtime)) {
    return e->status;
  }
  // The config's backend block with the command line's flags over it.
  HPTUNE_RETURN_IF_ERROR(ApplyBackendFlags(
      args, std::move(slurm_flags), loaded.backend, BackendFlagsFor::kRun));
  // A missing module or program ends here, not after launches.
  if (loaded.backend.backend == "local") {
    HPTUNE_RETURN_IF_ERROR(launch::CheckTrainer(DefaultEnv(), loaded.job));
  }
  return PreparedJob{.config = std::move(loaded),
                     .options = std::move(options),
                     .runtime = std::move(runtime),
                     .python_line = std::move(python_line)};
}

absl::StatusOr<std::unique_ptr<launch::Launcher>> MakeLauncher(
    const BackendConfig& backend, const ParsedArgs& args, Env& env) {
  if (backend.backend == "slurm") {
    HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<launch::SlurmLauncher> slurm,
                            CreateSlurmLauncher(backend, args, env));
    return std::unique_ptr<launch::Launcher>(std::move(slurm));
  }
  HPTUNE_ASSIGN_OR_RETURN(launch::GpuInventory gpus,
                          GpusFlag(args, ProcessEnv(), env));
  return std::unique_ptr<launch::Launcher>(
      std::make_unique<launch::LocalLauncher>(launch::LocalLauncherOptions{
          .env = &env,
          .gpus = std::move(gpus),
          .pull_images = args.Has("pull-images")}));
}

int FailLauncher(const absl::Status& status, const BackendConfig& backend,
                 std::ostream& err) {
  if (absl::IsUnavailable(status) ||
      (backend.backend == "slurm" && absl::IsFailedPrecondition(status))) {
    err << "hptune run: " << status.message() << "\n";
    return kExitUnavailable;
  }
  return FailRun(status, err);
}

// The runner lease is Unavailable while `hptune serve` serves the database
// or a live run runs this job.
int FailRuntime(const RuntimeError& error, std::ostream& err) {
  if (error.step == RuntimeStep::kLease && absl::IsUnavailable(error.status)) {
    err << "hptune run: " << error.status.message() << "\n";
    return kExitDatabaseBusy;
  }
  return FailRun(error.status, err);
}

// Submits the job, or takes it over when it is in the database and has not
// ended: its runner died (kill, crash, reboot). The exit code when it is not
// to run (an ended job, an error); nullopt to run it.
std::optional<int> SubmitOrTakeOver(store::Store& store,
                                    engine::TuningEngine& engine,
                                    launch::Launcher& launcher,
                                    runner::JobRunner& runner, Env& env,
                                    const std::filesystem::path& runs_dir,
                                    const JobSpec& job, const std::string& db,
                                    std::ostream& err) {
  const std::string& job_id = job.job_id;
  absl::StatusOr<JobRecord> existing = store.GetJob(job_id);
  if (existing.ok() && !IsTerminal(existing->state)) {
    err << "hptune run: resuming job " << job_id << " ("
        << ToString(existing->state) << "), study database " << db << "\n";
    // As `hptune serve` does at start-up: the dead runner's replicas are
    // stopped and the reports it had not read are stored, once.
    auto taken = jobs::TakeOverJob(store, engine, launcher, runs_dir, *existing,
                                   job, env);
    if (!taken.ok()) return FailRun(taken.status(), err);
    if (*taken == jobs::TakeOver::kEnded) {
      err << "hptune run: job " << job_id
          << " was being cancelled; it is CANCELLED\n";
      return kExitCancelled;
    }
    return std::nullopt;
  }
  if (existing.ok()) {
    // An ended job is not run again; its results can start a new one.
    err << "hptune run: job " << job_id << " already exists and has ended ("
        << ToString(existing->state) << "); to go on from its results, run "
        << "a new job from them: --job-id " << job_id << "_2 --resume-from "
        << job_id << " (--max-trials then counts the new trials)\n";
    return kExitInvalid;
  }
  auto submitted = runner.Submit(job);
  if (!submitted.ok()) return FailRun(submitted.status(), err);
  err << "hptune run: job " << job_id << ", study database " << db << "\n";
  if (const std::string seeding = job.study ? SeedingNote(*job.study) : "";
      !seeding.empty()) {
    err << "hptune run: " << seeding << "\n";
  }
  return std::nullopt;
}

// Runs the job to its end; Ctrl-C or SIGTERM cancels it (a second kills).
absl::StatusOr<JobRecord> RunUntilInterrupted(runner::JobRunner& runner,
                                              const JobSpec& job) {
  g_cancel.store(false);
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  absl::StatusOr<JobRecord> finished = runner.Run(job);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return finished;
}

// The watch on the job's runner lease (lease_watch.h), as `hptune serve`'s:
// once the database has ended the lease's session (a network partition, a
// database restart), another runner may take the job over, so this one
// stops its trainers through the draining launcher, leaving the job and its
// trials as they are, resumable, and ends the process.
std::unique_ptr<LeaseWatch> WatchLease(store::RunnerLease& lease,
                                       jobs::DrainingLauncher& launcher,
                                       std::chrono::milliseconds grace,
                                       Env& env, std::ostream& err) {
  return std::make_unique<LeaseWatch>(
      env, kLeaseCheckInterval, [&lease] { return lease.Check(); },
      [&launcher, grace, &err](const absl::Status& lost) {
        err << "hptune run: " << lost.message()
            << ": stopping the trainers (the job stays resumable)" << std::endl;
        launcher.Drain(grace);
        err << "hptune run: stopped" << std::endl;
        std::_Exit(kExitFailure);
      });
}

// "best trial: 4, accuracy 0.98 at step 100; lr=0.01 hidden=50".
void PrintBestTrial(const StudySpec& study, const Trial& t, std::ostream& out) {
  const Measurement& final = *t.final_measurement;
  out << "\nbest trial: " << t.number << ", " << study.metric_tag() << " "
      << ForReading(ParameterValue::Double(final.metrics.at(study.metric_tag()))
                        .ToString())
      << " at step " << final.step << ";";
  // Only the trial's active parameters, in search-space order.
  for (const ParameterSpec& p : study.search_space.parameters()) {
    auto it = t.parameters.find(p.name);
    if (it == t.parameters.end()) continue;
    out << " " << p.name << "=" << ForReading(it->second.ToString());
  }
  out << "\n";
}

// The trial table, and in table format the best trial and what early
// stopping saved under it; the whole job as Vertex's HyperparameterTuningJob
// (a CustomJob for a job without a study) for --format vertex, and for
// --format json of a job written as Vertex.
absl::Status PrintResults(engine::TuningEngine& engine, const JobSpec& job,
                          const JobRecord& finished, OutputFormat format,
                          std::ostream& out) {
  const StudySpec study = RunStudyOf(job);
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          engine.ListTrials(job.job_id));
  if (format == OutputFormat::kVertex ||
      (format == OutputFormat::kJson && job.dialect == SpecDialect::kVertex)) {
    out << (job.study ? VertexJobJson(job, finished, trials)
                      : VertexCustomJobJson(job, finished))
        << "\n";
    return absl::OkStatus();
  }
  // The engine's answers are the read side's, as `hptune studies` and
  // `hptune jobs describe` print them.
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> optimal,
                          engine.OptimalTrials(job.job_id));
  std::set<int64_t> optimal_numbers;
  for (const Trial& t : optimal) optimal_numbers.insert(t.number);
  PrintTrials(study, trials, optimal_numbers, format, out);
  if (format != OutputFormat::kTable) return absl::OkStatus();
  auto best = engine.BestTrial(job.job_id);
  const bool has_best = best.ok() && *best;
  if (has_best) PrintBestTrial(study, **best, out);
  HPTUNE_ASSIGN_OR_RETURN(std::optional<StoppingSavings> saved,
                          engine.EarlyStoppingSavings(job.job_id));
  if (saved) out << (has_best ? "" : "\n") << SavingsLine(*saved) << "\n";
  return absl::OkStatus();
}

// The job's end on `err`, and the exit code it means.
int ReportEnd(const JobRecord& finished, const std::string& config,
              const std::string& db, std::ostream& err) {
  const std::string& job_id = finished.job_id;
  err << "hptune run: job " << job_id << " " << ToString(finished.state);
  if (!finished.error_message.empty()) err << ": " << finished.error_message;
  err << "\n";
  if (finished.state == JobState::kCancelled) {
    err << "hptune run: to go on from its results: hptune run " << config
        << " --db " << db << " --job-id " << job_id << "_2 --resume-from "
        << job_id << "\n";
  }
  switch (finished.state) {
    case JobState::kSucceeded:
      return kExitOk;
    case JobState::kCancelled:
      // Cancelled by a trainingInput.scheduling limit, the job did not do
      // what it was run for: a failure, not the user's interrupt.
      return g_cancel.load() ? kExitCancelled : kExitFailure;
    default:
      return kExitFailure;
  }
}

}  // namespace

int RunRunCommand(const std::vector<std::string>& raw_args, std::ostream& out,
                  std::ostream& err) {
  // Replicas inherit this process's environment; a server's token there is
  // not theirs to see (`run` talks to no server).
  unsetenv("HPTUNE_TOKEN");
  std::variant<ParsedArgs, int> parsed = ParseCommandLine(raw_args, out, err);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  const ParsedArgs& args = std::get<ParsedArgs>(parsed);
  absl::StatusOr<OutputFormat> format =
      ParseOutputFormat(args.Get("format").value_or("table"), /*vertex=*/true);
  if (!format.ok()) return FailRun(format.status(), err);

  absl::StatusOr<PreparedJob> prepared =
      PrepareJob(args, RepeatedSlurmFlagsOf(args));
  if (!prepared.ok()) return FailRun(prepared.status(), err);
  if (const std::string note =
          IgnoredFieldsNote(prepared->config.ignored_fields);
      !note.empty()) {
    err << "hptune run: " << note << "\n";
  }
  const JobSpec& job = prepared->config.job;
  const BackendConfig& backend = prepared->config.backend;
  auto launcher = MakeLauncher(backend, args, *prepared->runtime.env);
  if (!launcher.ok()) return FailLauncher(launcher.status(), backend, err);
  std::variant<Runtime, RuntimeError> made = MakeRuntime(prepared->runtime);
  if (const auto* e = std::get_if<RuntimeError>(&made)) {
    return FailRuntime(*e, err);
  }
  const Runtime& runtime = std::get<Runtime>(made);
  // Named in messages: a PostgreSQL URL's password left out.
  const std::string db = store::PrintableStoreUrl(runtime.db);
  store::Store& store = *runtime.store;
  engine::TuningEngine engine(
      store,
      engine::EngineOptions{.background_designer_work = true,
                            .env = runtime.env},
      runtime.env->clock());

  // Submit refuses a job without hyperparameters; until then, no metric.
  ProgressPrinter progress(err, job.study ? job.study->metric_tag() : "",
                           /*live=*/!args.Has("quiet") && isatty(2),
                           /*quiet=*/args.Has("quiet"), runtime.env->clock());
  prepared->options.on_progress = [&](const runner::JobProgress& p) {
    progress.Update(p);
  };
  const std::filesystem::path runs_dir = prepared->options.runs_dir;
  const std::chrono::milliseconds grace = prepared->options.termination_grace;
  // Drained, stopping the trainers, when the runner lease is lost.
  jobs::DrainingLauncher draining(**launcher, *runtime.env);
  runner::JobRunner runner(store, engine, draining,
                           std::move(prepared->options), *runtime.env);
  if (std::optional<int> code =
          SubmitOrTakeOver(store, engine, draining, runner, *runtime.env,
                           runs_dir, job, db, err)) {
    return *code;
  }
  if (backend.backend != "slurm") {
    err << "hptune run: each trial's processes are contained by "
        << launch::ReplicaContainment() << "\n";
  }
  // With the other start-up lines, once the job is in: a refused flag or
  // job is then the only line.
  if (!prepared->python_line.empty()) {
    err << "hptune run: " << prepared->python_line << "\n";
  }
  const std::unique_ptr<LeaseWatch> watch =
      WatchLease(*runtime.lease, draining, grace, *runtime.env, err);
  absl::StatusOr<JobRecord> finished = RunUntilInterrupted(runner, job);
  progress.Finish();
  if (!finished.ok()) return FailRun(finished.status(), err);
  if (absl::Status s = PrintResults(engine, job, *finished, *format, out);
      !s.ok()) {
    return FailRun(s, err);
  }
  return ReportEnd(*finished, args.positional.front(), db, err);
}

}  // namespace hptune::cli
