#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "src/api/conversion.h"
#include "src/cli/client/job_format.h"
#include "src/cli/client/study_reader.h"
#include "src/cli/commands/jobs/subcommand.h"

namespace hptune::cli::jobs {
namespace {

constexpr char kDescribeUsage[] =
    "usage: hptune jobs describe JOB [--format table|json|csv|vertex] "
    "[flags]\n"
    "\n"
    "The job's state, trainer and machines, its trials and the best trial.\n"
    "--format json prints AI Platform's Job: jobId, state, trainingInput and\n"
    "trainingOutput {completedTrialCount, trials [{trialId,\n"
    "hyperparameters, finalMetric {trainingStep, objectiveValue},\n"
    "isTrialStoppedEarly, state, startTime, endTime}]}; csv the trial table;\n"
    "vertex (and json of a job written as Vertex) Vertex AI's\n"
    "HyperparameterTuningJob.\n";
constexpr char kDescribeExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs describe mnist_1 --format json\n";

// The reply's job as the store keeps it: what VertexJobJson reads.
JobRecord RecordOf(const v1::Job& job) {
  JobRecord record;
  record.job_id = job.job_id();
  record.state =
      api::JobStateFromProto(job.state()).value_or(JobState::kQueued);
  record.error_message = job.error_message();
  record.labels = JobLabels(job.labels().begin(), job.labels().end());
  record.create_time = api::TimestampFromProto(job.create_time());
  if (job.has_start_time()) {
    record.start_time = api::TimestampFromProto(job.start_time());
  }
  if (job.has_end_time())
    record.end_time = api::TimestampFromProto(job.end_time());
  return record;
}

// The job as Vertex's HyperparameterTuningJob: its spec from the reply, its
// trials, with typed values, from the StudyService (its study is its ID).
int PrintVertexJob(const Invocation& c, const v1::Job& job, std::ostream& out,
                   std::ostream& err) {
  absl::StatusOr<JobSpec> spec =
      api::JobSpecFromProto(job.training_input(), job.job_id());
  if (!spec.ok()) return FailStatus(spec.status(), err);
  absl::StatusOr<std::vector<Trial>> trials =
      client::ServerStudyReader(c.server)->ListTrials(job.job_id());
  if (!trials.ok()) return FailStatus(trials.status(), err);
  out << VertexJobJson(*spec, RecordOf(job), *trials) << "\n";
  return kExitOk;
}

int RunDescribe(Invocation& c, std::ostream& out, std::ostream& err) {
  v1::Job job;
  grpc::Status status = GetJob(c, c.args.positional[0], false, job);
  if (!status.ok()) return c.server.Fail(status, err);
  const bool vertex =
      job.training_input().dialect() == v1::TrainingInput::VERTEX;
  switch (c.format) {
    case OutputFormat::kVertex:
      return PrintVertexJob(c, job, out, err);
    case OutputFormat::kJson:
      if (vertex) return PrintVertexJob(c, job, out, err);
      out << client::JobJson(job) << "\n";
      break;
    case OutputFormat::kCsv:
      PrintTable(client::JobTrialsTable(job), c.format, out);
      break;
    case OutputFormat::kTable:
      client::PrintJobSummary(job, out);
      break;
  }
  return kExitOk;
}

}  // namespace

Subcommand DescribeCommand() {
  return {"describe", Usage(kDescribeUsage, kDescribeExample),
          {"format"}, {},
          true,       RunDescribe};
}

}  // namespace hptune::cli::jobs
