#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "hptune/core/status.h"
#include "hptune/read/study_answers.h"
#include "src/api/conversion.h"
#include "src/cli/client/job_format.h"
#include "src/cli/client/study_reader.h"
#include "src/cli/commands/jobs/subcommand.h"
#include "src/cli/runtime.h"
#include "src/cli/savings_line.h"

namespace hptune::cli::jobs {
namespace {

constexpr char kDescribeUsage[] =
    "usage: hptune jobs describe JOB [--format table|json|csv|vertex] "
    "[--db FILE | flags]\n"
    "\n"
    "The job's state, trainer and machines, its trials and the best trial,\n"
    "from the server, or with --db FILE from a database file that `hptune\n"
    "run` or `hptune serve` wrote (read directly; no server needed).\n"
    "--format json prints AI Platform's Job: jobId, state, trainingInput and\n"
    "trainingOutput {completedTrialCount, trials [{trialId,\n"
    "hyperparameters, finalMetric {trainingStep, objectiveValue},\n"
    "isTrialStoppedEarly, state, startTime, endTime}]} and\n"
    "earlyStoppingSavings (what early stopping saved, docs/cli.md); the table\n"
    "ends in the same as an \"early stopping:\" line; csv the trial table;\n"
    "vertex (and json of a job written as Vertex) Vertex AI's\n"
    "HyperparameterTuningJob.\n";
constexpr char kDescribeExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs describe mnist_1 --format json\n";

// A job and its study's trials, read from the server or from --db.
struct DescribedJob {
  v1::Job job;
  std::vector<Trial> trials;  // Only read from a file; else asked for.
  // What early stopping saved, from the file's read side; else asked for.
  std::optional<StoppingSavings> savings;
};

// The job as the server's GetJob describes it, from a database file.
absl::StatusOr<DescribedJob> JobFromDatabase(const std::string& db,
                                             const std::string& job_id) {
  std::variant<Runtime, RuntimeError> made =
      MakeRuntime({.use = StoreUse::kRead, .db = db, .env = &DefaultEnv()});
  if (const RuntimeError* e = std::get_if<RuntimeError>(&made)) {
    return e->status;
  }
  const std::unique_ptr<store::Store>& store = std::get<Runtime>(made).store;
  HPTUNE_ASSIGN_OR_RETURN(JobRecord record, store->GetJob(job_id));
  DescribedJob described;
  absl::StatusOr<StudyRecord> study = store->GetStudy(record.study_name);
  if (absl::IsNotFound(study.status())) {
    described.job = api::JobToProto(record, nullptr, {}, false);
    return described;
  }
  HPTUNE_RETURN_IF_ERROR(study.status());
  HPTUNE_ASSIGN_OR_RETURN(described.trials,
                          store->ListTrials(record.study_name));
  described.job = api::JobToProto(record, &study->spec, described.trials, true);
  HPTUNE_ASSIGN_OR_RETURN(
      described.savings,
      read::StoreStudyAnswers(*store).Savings(record.study_name));
  return described;
}

// The job as Vertex's HyperparameterTuningJob (a CustomJob without a study):
// its spec from the reply, its trials, with typed values, from the
// StudyService (its study is its ID) unless they were read from a file.
int PrintVertexJob(const Invocation& c, const DescribedJob& described,
                   std::ostream& out, std::ostream& err) {
  const v1::Job& job = described.job;
  absl::StatusOr<JobSpec> spec =
      api::JobSpecFromProto(job.training_input(), job.job_id());
  if (!spec.ok()) return FailStatus(spec.status(), err);
  absl::StatusOr<std::vector<Trial>> trials = described.trials;
  if (!c.args.Has("db")) {
    trials = client::ServerStudyReader(c.server)->ListTrials(job.job_id());
  }
  if (!trials.ok()) return FailStatus(trials.status(), err);
  const JobRecord record = api::JobRecordFromProto(job);
  out << (spec->study ? VertexJobJson(*spec, record, *trials)
                      : VertexCustomJobJson(*spec, record))
      << "\n";
  return kExitOk;
}

// What early stopping saved the job (the read side's answer about its
// study, named by its ID): read from the file, or asked of the server
// (GetStoppingSavings). nullopt for a job without a study or early
// stopping.
absl::StatusOr<std::optional<StoppingSavings>> SavingsOf(
    const Invocation& c, const DescribedJob& described) {
  const v1::Job& job = described.job;
  if (!job.training_input().has_hyperparameters()) return std::nullopt;
  if (c.args.Has("db")) return described.savings;
  return client::ServerStudyReader(c.server)->Savings(job.job_id());
}

int RunDescribe(Invocation& c, std::ostream& out, std::ostream& err) {
  DescribedJob described;
  if (auto db = c.args.Get("db")) {
    absl::StatusOr<DescribedJob> read =
        JobFromDatabase(*db, c.args.positional[0]);
    if (!read.ok()) return FailStatus(read.status(), err);
    described = *std::move(read);
  } else {
    grpc::Status status = GetJob(c, c.args.positional[0], false, described.job);
    if (!status.ok()) return c.server.Fail(status, err);
  }
  const v1::Job& job = described.job;
  const bool vertex =
      job.training_input().dialect() == v1::TrainingInput::VERTEX;
  switch (c.format) {
    case OutputFormat::kVertex:
      return PrintVertexJob(c, described, out, err);
    case OutputFormat::kJson: {
      if (vertex) return PrintVertexJob(c, described, out, err);
      absl::StatusOr<std::optional<StoppingSavings>> saved =
          SavingsOf(c, described);
      if (!saved.ok()) return FailStatus(saved.status(), err);
      out << WithSavingsJson(client::JobJson(job), *saved) << "\n";
      break;
    }
    case OutputFormat::kCsv:
      PrintTable(client::JobTrialsTable(job), c.format, out);
      break;
    case OutputFormat::kTable: {
      absl::StatusOr<std::optional<StoppingSavings>> saved =
          SavingsOf(c, described);
      if (!saved.ok()) return FailStatus(saved.status(), err);
      client::PrintJobSummary(job, out);
      if (*saved) out << "\n" << SavingsLine(**saved) << "\n";
      break;
    }
  }
  return kExitOk;
}

}  // namespace

Subcommand DescribeCommand() {
  return {"describe",
          Usage(kDescribeUsage, kDescribeExample),
          {"format", "db"},
          {},
          true,
          RunDescribe};
}

}  // namespace hptune::cli::jobs
