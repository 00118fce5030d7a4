#include "src/jobs/trial_recovery.h"

#include <string>
#include <utility>
#include <vector>

#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/launch/metrics.h"
#include "hptune/launch/replica_env.h"
#include "hptune/launch/stored_reports.h"

namespace hptune::jobs {
namespace {

// Adds the reports of the lost run that are not stored yet. A program
// reports through one channel: its hypertune file when it wrote one, else
// its stdout lines (as TrialExecution reads them).
absl::Status StoreMissingReports(Env& env, engine::TuningEngine& engine,
                                 const std::string& study, const Trial& trial,
                                 const std::filesystem::path& metrics_path,
                                 const std::filesystem::path& log_path,
                                 const std::string& metric) {
  // A dead attempt's non-finite value is not stored: the trial's next
  // attempt is judged on its own reports.
  launch::HypertuneFileReader hypertune(metrics_path, metric, env);
  HPTUNE_ASSIGN_OR_RETURN(launch::MetricReads read, hypertune.ReadNew());
  std::vector<Measurement> reports = std::move(read.measurements);
  if (reports.empty()) {
    launch::StdoutMetricReader lines(log_path, metric, env);
    HPTUNE_ASSIGN_OR_RETURN(read, lines.ReadNew());
    reports = std::move(read.measurements);
  }
  // They belong to the attempt the dead runner ran (stored before it
  // started).
  for (Measurement& m : reports) m.attempt = trial.attempt;
  launch::StoredReports stored(trial.measurements);
  for (Measurement& m : stored.TakeUnstored(std::move(reports))) {
    HPTUNE_RETURN_IF_ERROR(
        engine.AddMeasurement(study, trial.number, std::move(m)));
  }
  return absl::OkStatus();
}

// master-0.log -> master-0.log.<k> with the first k >= 1 not taken.
absl::Status MoveAside(Env& env, const std::filesystem::path& dir) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> entries,
                          env.ListDirectory(dir));
  for (const DirectoryEntry& entry : entries) {
    const std::string ext = std::filesystem::path(entry.name).extension();
    if (entry.type != FileType::kRegular ||
        (ext != ".log" && ext != ".metrics")) {
      continue;
    }
    const std::filesystem::path file = dir / entry.name;
    for (int k = 1; k < 1000; ++k) {
      std::filesystem::path target = file;
      target += "." + std::to_string(k);
      if (env.Exists(target)) continue;
      HPTUNE_RETURN_IF_ERROR(env.Rename(file, target));
      break;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RecoverTrialFiles(engine::TuningEngine& engine,
                               const std::filesystem::path& runs_dir,
                               const JobRecord& job, const JobSpec& spec,
                               Env& env) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, engine.GetStudy(job.study_name));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          engine.ListTrials(job.study_name));
  for (const Trial& trial : trials) {
    if (trial.state != TrialState::kActive &&
        trial.state != TrialState::kStopping) {
      continue;
    }
    const std::filesystem::path dir =
        RunsLayout(runs_dir).TrialDir(job.job_id, trial.number);
    absl::StatusOr<FileType> type = env.TypeOf(dir);
    if (!type.ok() || *type != FileType::kDirectory) continue;
    const bool chief = spec.use_chief_in_tf_config;
    HPTUNE_RETURN_IF_ERROR(StoreMissingReports(
        env, engine, job.study_name, trial,
        launch::ReplicaMetricsPath(dir, TaskType::kMaster, 0, chief),
        launch::ReplicaLogPath(dir, TaskType::kMaster, 0, chief),
        study.spec.metric_tag()));
    HPTUNE_RETURN_IF_ERROR(MoveAside(env, dir));
  }
  return absl::OkStatus();
}

}  // namespace hptune::jobs
