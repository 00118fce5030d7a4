#include "src/cli/client/job_format.h"
#include "src/cli/commands/jobs/subcommand.h"

namespace hptune::cli::jobs {
namespace {

constexpr char kDescribeUsage[] =
    "usage: hptune jobs describe JOB [--format table|json|csv] [flags]\n"
    "\n"
    "The job's state, trainer and machines, its trials and the best trial.\n"
    "--format json prints AI Platform's Job: jobId, state, trainingInput and\n"
    "trainingOutput {completedTrialCount, trials [{trialId,\n"
    "hyperparameters, finalMetric {trainingStep, objectiveValue},\n"
    "isTrialStoppedEarly, state, startTime, endTime}]}; csv the trial table.\n";
constexpr char kDescribeExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs describe mnist_1 --format json\n";

int RunDescribe(Invocation& c, std::ostream& out, std::ostream& err) {
  v1::Job job;
  grpc::Status status = GetJob(c, c.args.positional[0], false, job);
  if (!status.ok()) return c.server.Fail(status, err);
  switch (c.format) {
    case OutputFormat::kJson:
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
