// How `hptune jobs ...` prints the server's replies: a job as AI Platform's
// Job JSON (`--format json`: jobId, state, trainingInput, trainingOutput
// {completedTrialCount, trials [{trialId, hyperparameters, finalMetric
// {trainingStep, objectiveValue}, isTrialStoppedEarly, state, ...}]}), as a
// human summary with a trial table, as a row of `jobs list`, and as a line
// per WatchJob event. Also the `jobs list --filter` syntax.
// Used only by src/cli. Pure functions; thread-safe.
#ifndef HPTUNE_CLI_CLIENT_JOB_FORMAT_H_
#define HPTUNE_CLI_CLIENT_JOB_FORMAT_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/v1/job.pb.h"
#include "hptune/v1/job_service.pb.h"
#include "src/cli/output.h"

namespace hptune::cli::client {

// The whole job, proto3 JSON with AI Platform's names, indented.
std::string JobJson(const v1::Job& job);

// trialId, state, one column per parameter (in the spec's order), objective,
// step, stoppedEarly, startTime, endTime, error. A trial without a final
// metric shows its latest report in objective and step (a RUNNING trial).
Table JobTrialsTable(const v1::Job& job);

// A summary (state, times, trainer, machines, objective, progress), the trial
// table and the best trial.
void PrintJobSummary(const v1::Job& job, std::ostream& out);

// jobId, state, created, trials ("completed/maxTrials"), best, error.
Table JobsTable(const std::vector<v1::Job>& jobs);

// One line: "RUNNING" / "trial 3 SUCCEEDED: accuracy=0.98 at step 100
// (lr=0.01, hidden=50)". `metric` names the objective.
std::string DescribeJobEvent(const v1::JobEvent& event,
                             const std::string& metric);

// The job's labels as "owner=ana, team=vision", sorted by key.
std::string JobLabelsText(const v1::Job& job);

// "state=RUNNING", "state=RUNNING,QUEUED", "jobId=mnist*",
// "labels.team=vision", "labels.team=*" (any value), several terms separated
// by spaces. InvalidArgument naming --filter and the term.
[[nodiscard]] absl::Status ApplyJobsFilter(const std::string& filter,
                                           v1::ListJobsRequest& request);

// The objective of a job's study ("training/hptuning/metric" by default).
std::string MetricTag(const v1::Job& job);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_JOB_FORMAT_H_
