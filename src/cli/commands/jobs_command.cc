#include "src/cli/commands/jobs_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "src/api/conversion.h"
#include "src/cli/backend_flags.h"
#include "src/cli/client/connection.h"
#include "src/cli/client/job_format.h"
#include "src/cli/client/job_watch.h"
#include "src/cli/client/proto_convert.h"
#include "src/cli/client/reconnect.h"
#include "src/cli/client/rpc_errors.h"
#include "src/cli/client/submit_flags.h"
#include "src/cli/flags.h"
#include "src/cli/labels_flag.h"
#include "src/cli/output.h"

namespace hptune::cli {
namespace {

using client::IsTerminal;
using client::ServerConnection;
using Stub = v1::JobService::Stub;

// How often a follower asks again for a trial that has no log yet.
constexpr auto kLogPollInterval = std::chrono::milliseconds(300);

constexpr char kJobsUsage[] =
    "usage: hptune jobs COMMAND [ARGS] [flags]\n"
    "\n"
    "Training jobs on an hptune server (`hptune serve`), as `gcloud\n"
    "ai-platform jobs` runs them on AI Platform.\n"
    "\n"
    "Commands:\n"
    "  submit JOB --config FILE [flags] [-- ARGS]  start a tuning job\n"
    "  list [--filter F] [--limit N]               jobs, newest first\n"
    "  describe JOB                                state, trials, best trial\n"
    "  cancel JOB [--wait]                         stop a job and its trials\n"
    "  update JOB --update-labels K=V ...          change a job's labels\n"
    "  stream-logs JOB [--trial N] [--follow]      trainer output\n"
    "  watch JOB                                   state changes and trial\n"
    "                                              results until it ends\n"
    "\n"
    "Run `hptune jobs COMMAND --help` for a command's flags.\n"
    "Exit codes: 0 ok, 1 failed (or the job failed or was cancelled),\n"
    "2 invalid input, 3 not found, 64 bad usage, 69 no server reachable,\n"
    "75 timed out, 77 token refused.\n";

constexpr char kSubmitUsage[] =
    "usage: hptune jobs submit JOB [--config FILE] [flags] [-- USER_ARGS...]\n"
    "\n"
    "Submits a training job to the server: every trial a distributed\n"
    "training job. The config (YAML or JSON, `trainingInput:` at the top)\n"
    "is validated here first; flags override the same option in it.\n"
    "\n"
    "  JOB                       unique job ID: letters, digits and\n"
    "                            underscores, starting with a letter\n"
    "  --config FILE             the job's trainingInput\n"
    "  --wait                    follow the job until it ends (progress on\n"
    "                            stderr), then describe it\n"
    "  --stream-logs             print the trials' logs until the job ends\n"
    "  --quiet                   with --wait: no progress lines\n"
    "  --reconnect-seconds N     with --wait or --stream-logs: when the\n"
    "                            server goes away (a restart), try to reach\n"
    "                            it again for up to N seconds (default 300;\n"
    "                            0: fail at once)\n"
    "  --format table|json|csv   the job (json: AI Platform's Job)\n";
constexpr char kSubmitExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs submit mnist_1 --config config.yaml \\\n"
    "      --module-name trainer.task --package-path ./trainer \\\n"
    "      --job-dir /data/jobs/mnist_1 --max-trials 8 -- --epochs=10\n"
    "\n"
    "Exit codes: 0 submitted (with --wait/--stream-logs: succeeded), 1 the\n"
    "job failed or was cancelled, 2 invalid config or flag value, 64 bad\n"
    "usage, 69 no server reachable, 77 token refused.\n";

constexpr char kListUsage[] =
    "usage: hptune jobs list [--filter F] [--limit N] [--page-size N] "
    "[flags]\n"
    "\n"
    "Jobs on the server, newest first.\n"
    "\n"
    "  --filter F                terms separated by spaces, all of which a\n"
    "                            job must meet: state=STATE[,STATE...],\n"
    "                            jobId=PREFIX*, labels.KEY=VALUE (VALUE *:\n"
    "                            any value)\n"
    "  --limit N                 at most N jobs (default: all)\n"
    "  --page-size N             jobs per request (default 100)\n"
    "  --format table|json|csv\n";
constexpr char kListExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs list --filter state=RUNNING --limit 10\n"
    "  hptune jobs list --filter 'labels.team=vision state=FAILED'\n";

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

constexpr char kCancelUsage[] =
    "usage: hptune jobs cancel JOB [--wait] [flags]\n"
    "\n"
    "Cancels a queued or running job: its running trials are stopped and it\n"
    "ends CANCELLED.\n"
    "\n"
    "  --wait                    wait until the job has ended\n"
    "  --reconnect-seconds N     with --wait: how long to try to reach a\n"
    "                            server that went away (default 300)\n";
constexpr char kCancelExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs cancel mnist_1 --wait\n";

constexpr char kUpdateUsage[] =
    "usage: hptune jobs update JOB [--update-labels K=V[,K=V...]]\n"
    "                              [--remove-labels K[,K...]] "
    "[--clear-labels]\n"
    "                              [--format table|json] [flags]\n"
    "\n"
    "Changes a job's labels, in any state, as `gcloud ai-platform jobs\n"
    "update` does: --clear-labels first, then --update-labels, then\n"
    "--remove-labels. Prints the job's labels afterwards (json: the Job).\n"
    "\n"
    "  --update-labels K=V,...   add labels, or give them new values\n"
    "  --remove-labels K,...     remove these labels (absent ones are\n"
    "                            ignored)\n"
    "  --clear-labels            remove every label\n"
    "  --format table|json\n";
constexpr char kUpdateExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs update mnist_1 --update-labels stage=prod "
    "--remove-labels draft\n";

constexpr char kStreamLogsUsage[] =
    "usage: hptune jobs stream-logs JOB [--trial N] [--replica NAME] "
    "[--follow] [flags]\n"
    "\n"
    "Prints what the trainer wrote (stdout and stderr). Without --trial,\n"
    "every trial's log in turn, each after a \"==> trial N REPLICA <==\"\n"
    "line.\n"
    "\n"
    "  --trial N                 only trial N (1, 2, ...)\n"
    "  --replica NAME            master-0 (default), chief-0, worker-N,\n"
    "                            ps-N or evaluator-N\n"
    "  --follow                  keep printing new output until the trial\n"
    "                            (without --trial: the job) has ended\n"
    "  --reconnect-seconds N     when the server goes away (a restart), try\n"
    "                            to reach it again for up to N seconds and\n"
    "                            go on where the log was (default 300; 0:\n"
    "                            fail at once)\n";
constexpr char kStreamLogsExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs stream-logs mnist_1 --trial 3 --replica worker-0 "
    "--follow\n";

constexpr char kWatchUsage[] =
    "usage: hptune jobs watch JOB [flags]\n"
    "\n"
    "Prints the job's trials so far, then its state changes and each\n"
    "trial's start and result as they happen, until the job ends. Exit code\n"
    "0 when it succeeded, 1 when it failed or was cancelled. When the server\n"
    "goes away (a restart), the watch waits for it and goes on where it\n"
    "was: each trial's result is printed once, none is missed.\n"
    "\n"
    "  --reconnect-seconds N     how long to try to reach a server that went\n"
    "                            away (default 300; 0: fail at once)\n";
constexpr char kWatchExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs watch mnist_1\n";

// A subcommand's help: what it does and its own flags, then the server
// flags every subcommand has, then an example.
std::string Usage(const char* head, const char* example,
                  const char* more_flags = "") {
  return absl::StrCat(head, more_flags[0] ? "\n" : "", more_flags, "\n",
                      client::kConnectionHelp, example);
}

struct Invocation {
  ParsedArgs args;
  ServerConnection server;
  std::unique_ptr<Stub> stub;
  OutputFormat format = OutputFormat::kTable;
  std::chrono::seconds reconnect_window = client::kDefaultReconnectWindow;
  // `submit`'s repeatable Slurm flags, which ParseArgs does not keep.
  RepeatedSlurmFlags slurm_flags;
};

int FinalStateExitCode(v1::Job::State state) {
  return state == v1::Job::SUCCEEDED ? kExitOk : kExitFailure;
}

bool IsEnded(const v1::HyperparameterOutput& trial) {
  return IsTerminal(trial.state());
}

int FailStatus(const absl::Status& status, std::ostream& err) {
  err << "hptune: " << status.message() << "\n";
  return client::ExitCodeForStatus(status);
}

grpc::Status GetJob(const Invocation& c, const std::string& job_id,
                    bool omit_trials, v1::Job& job) {
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  request.set_omit_trials(omit_trials);
  return c.stub->GetJob(c.server.Context().get(), request, &job);
}

// --reconnect-seconds: whole seconds, 0 to a year.
absl::StatusOr<std::chrono::seconds> ReconnectWindow(const ParsedArgs& args) {
  constexpr int64_t kYear = 365 * 24 * 3600;
  ASSIGN_OR_RETURN(int64_t seconds,
                   IntegerFlag<int64_t>(args, "reconnect-seconds", 0, kYear,
                                        "whole seconds"));
  return std::chrono::seconds(seconds);
}

// Follows the job until it ends (client::FollowJob), calling `on_event` for
// each change; `final_state` is the last job state seen.
grpc::Status Watch(const Invocation& c, const std::string& job_id,
                   const std::function<void(const v1::JobEvent&)>& on_event,
                   std::ostream& notices, v1::Job::State& final_state) {
  return client::FollowJob({.server = c.server,
                            .stub = *c.stub,
                            .job_id = job_id,
                            .reconnect_window = c.reconnect_window,
                            .on_event = on_event,
                            .notices = notices},
                           final_state);
}

// Copies one replica's log of one trial to `out` from `offset`, which
// follows what was copied, so that a broken stream can be made again.
grpc::Status StreamLog(const Invocation& c, const std::string& job_id,
                       int64_t trial, const std::string& replica, bool follow,
                       int64_t& offset, client::Reconnector& reconnector,
                       std::ostream& out) {
  v1::GetTrialLogsRequest request;
  request.set_job_id(job_id);
  request.set_trial_id(trial);
  request.set_replica(replica);
  request.set_offset(offset);
  request.set_follow(follow);
  auto context = c.server.Context(/*streaming=*/follow);
  auto reader = c.stub->StreamTrialLogs(context.get(), request);
  v1::LogChunk chunk;
  while (reader->Read(&chunk)) {
    reconnector.Answered();
    out << chunk.data();
    out.flush();
    offset = chunk.next_offset();
  }
  return reader->Finish();
}

// Every trial's log in trial order; with `follow`, also the trials still to
// come, until the job has ended. Returns the job's last state.
grpc::Status StreamJobLogs(const Invocation& c, const std::string& job_id,
                           const std::string& replica, bool follow,
                           client::Reconnector& reconnector, std::ostream& out,
                           v1::Job::State& final_state) {
  auto get_job = [&](v1::Job& job) {
    return client::CallWithReconnects(
        reconnector, [&] { return GetJob(c, job_id, false, job); });
  };
  for (int64_t n = 1;; ++n) {
    v1::Job job;
    // Wait for trial n to appear, or for the job to end without it.
    for (;;) {
      if (grpc::Status s = get_job(job); !s.ok()) return s;
      final_state = job.state();
      if (job.training_output().trials_size() >= n) break;
      if (!follow || IsTerminal(job.state())) return grpc::Status::OK;
      std::this_thread::sleep_for(kLogPollInterval);
    }
    out << (n > 1 ? "\n" : "") << "==> trial " << n << " " << replica
        << " <==\n";
    int64_t offset = 0;
    for (;;) {
      bool ended = IsEnded(job.training_output().trials(n - 1));
      grpc::Status s = client::CallWithReconnects(reconnector, [&] {
        return StreamLog(c, job_id, n, replica, follow && !ended, offset,
                         reconnector, out);
      });
      if (s.ok()) break;
      if (s.error_code() != grpc::StatusCode::NOT_FOUND) return s;
      // No log yet (the trial is queued), or none at all (it never ran).
      if (!follow || ended) {
        out << "(no log: " << s.error_message() << ")\n";
        break;
      }
      std::this_thread::sleep_for(kLogPollInterval);
      if (grpc::Status g = get_job(job); !g.ok()) return g;
      final_state = job.state();
    }
  }
}

int Submit(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  auto submission = client::BuildSubmission(job_id, c.args.Get("config"),
                                            c.args, std::move(c.slurm_flags),
                                            std::filesystem::current_path());
  if (!submission.ok()) return FailStatus(submission.status(), err);
  auto input = client::TrainingInputFromJson(submission->training_input_json);
  if (!input.ok()) return FailStatus(input.status(), err);

  v1::SubmitJobRequest request;
  request.set_job_id(job_id);
  *request.mutable_training_input() = *std::move(input);
  request.set_backend(submission->backend);
  request.mutable_labels()->insert(submission->job.labels.begin(),
                                   submission->job.labels.end());
  if (!submission->job.slurm.empty()) {
    *request.mutable_slurm() = api::SlurmOptionsToProto(submission->job.slurm);
  }
  v1::Job job;
  grpc::Status status =
      c.stub->SubmitJob(c.server.Context().get(), request, &job);
  if (!status.ok()) return c.server.Fail(status, err);

  const bool wait = c.args.Has("wait");
  const bool stream_logs = c.args.Has("stream-logs");
  if (!wait && !stream_logs) {
    if (c.format == OutputFormat::kJson) {
      out << client::JobJson(job) << "\n";
    } else if (c.format == OutputFormat::kCsv) {
      PrintTable(client::JobsTable({job}), c.format, out);
    } else {
      out << "job " << job_id << " submitted ("
          << v1::Job::State_Name(job.state()) << ")\n"
          << "  hptune jobs describe " << job_id << "\n"
          << "  hptune jobs watch " << job_id << "\n"
          << "  hptune jobs stream-logs " << job_id << " --follow\n";
    }
    return kExitOk;
  }
  err << "hptune: job " << job_id << " submitted\n";
  v1::Job::State final_state = v1::Job::STATE_UNSPECIFIED;
  if (stream_logs) {
    client::Reconnector reconnector(c.server, c.reconnect_window, err,
                                    "the logs of job " + job_id);
    status = StreamJobLogs(c, job_id, "master-0", /*follow=*/true, reconnector,
                           out, final_state);
  } else {
    const std::string metric = client::MetricTag(job);
    const bool quiet = c.args.Has("quiet");
    status = Watch(
        c, job_id,
        [&](const v1::JobEvent& event) {
          if (!quiet) {
            err << "hptune: " << client::DescribeJobEvent(event, metric)
                << "\n";
          }
        },
        err, final_state);
  }
  if (!status.ok()) return c.server.Fail(status, err);
  if (wait) {
    status = GetJob(c, job_id, false, job);
    if (!status.ok()) return c.server.Fail(status, err);
    if (c.format == OutputFormat::kJson) {
      out << client::JobJson(job) << "\n";
    } else if (c.format == OutputFormat::kCsv) {
      PrintTable(client::JobTrialsTable(job), c.format, out);
    } else {
      client::PrintJobSummary(job, out);
    }
    final_state = job.state();
  }
  err << "hptune: job " << job_id << " " << v1::Job::State_Name(final_state)
      << "\n";
  return FinalStateExitCode(final_state);
}

int List(Invocation& c, std::ostream& out, std::ostream& err) {
  v1::ListJobsRequest request;
  if (auto filter = c.args.Get("filter")) {
    if (auto s = client::ApplyJobsFilter(*filter, request); !s.ok()) {
      return FailStatus(s, err);
    }
  }
  std::optional<int64_t> limit;
  if (c.args.Has("limit")) {
    auto value = IntegerFlag<int64_t>(c.args, "limit", 1);
    if (!value.ok()) return FailStatus(value.status(), err);
    limit = *value;
  }
  if (c.args.Has("page-size")) {
    auto value = IntegerFlag<int64_t>(c.args, "page-size", 1);
    if (!value.ok()) return FailStatus(value.status(), err);
    if (*value > 1000) {
      return FailStatus(absl::InvalidArgumentError(absl::StrCat(
                            "--page-size: at most 1000, got ", *value)),
                        err);
    }
    request.set_page_size(static_cast<int32_t>(*value));
  }
  std::vector<v1::Job> jobs;
  for (;;) {
    if (limit) {
      const int64_t left = *limit - static_cast<int64_t>(jobs.size());
      if (request.page_size() == 0 || request.page_size() > left) {
        request.set_page_size(
            static_cast<int32_t>(std::min<int64_t>(left, 1000)));
      }
    }
    v1::ListJobsResponse response;
    grpc::Status status =
        c.stub->ListJobs(c.server.Context().get(), request, &response);
    if (!status.ok()) return c.server.Fail(status, err);
    for (auto& job : *response.mutable_jobs()) {
      if (limit && static_cast<int64_t>(jobs.size()) >= *limit) break;
      jobs.push_back(std::move(job));
    }
    if (response.next_page_token().empty() ||
        (limit && static_cast<int64_t>(jobs.size()) >= *limit)) {
      break;
    }
    request.set_page_token(response.next_page_token());
  }
  if (c.format == OutputFormat::kJson) {
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const v1::Job& job : jobs) {
      array.push_back(
          nlohmann::ordered_json::parse(client::MessageToJson(job, false)));
    }
    out << array.dump(2) << "\n";
  } else {
    PrintTable(client::JobsTable(jobs), c.format, out);
  }
  return kExitOk;
}

int Describe(Invocation& c, std::ostream& out, std::ostream& err) {
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

int Update(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  v1::UpdateJobRequest request;
  request.set_job_id(job_id);
  if (auto text = c.args.Get("update-labels")) {
    auto labels = ParseLabelPairs("update-labels", *text);
    if (!labels.ok()) return FailStatus(labels.status(), err);
    request.mutable_update_labels()->insert(labels->begin(), labels->end());
  }
  if (auto text = c.args.Get("remove-labels")) {
    auto keys = ParseLabelKeys("remove-labels", *text);
    if (!keys.ok()) return FailStatus(keys.status(), err);
    for (const std::string& key : *keys) request.add_remove_labels(key);
  }
  request.set_clear_labels(c.args.Has("clear-labels"));
  if (request.update_labels().empty() && request.remove_labels().empty() &&
      !request.clear_labels()) {
    err << "hptune jobs update: give --update-labels, --remove-labels or "
           "--clear-labels\n\n"
        << kUpdateUsage;
    return kExitUsage;
  }
  if (c.format == OutputFormat::kCsv) {
    return FailStatus(
        absl::InvalidArgumentError("--format must be table or json, got csv"),
        err);
  }
  v1::Job job;
  grpc::Status status =
      c.stub->UpdateJob(c.server.Context().get(), request, &job);
  if (!status.ok()) return c.server.Fail(status, err);
  if (c.format == OutputFormat::kJson) {
    out << client::JobJson(job) << "\n";
  } else {
    out << "job " << job_id << " labels: "
        << (job.labels().empty() ? "(none)" : client::JobLabelsText(job))
        << "\n";
  }
  return kExitOk;
}

int Cancel(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  v1::CancelJobRequest request;
  request.set_job_id(job_id);
  v1::Job job;
  grpc::Status status =
      c.stub->CancelJob(c.server.Context().get(), request, &job);
  if (!status.ok()) return c.server.Fail(status, err);
  if (!c.args.Has("wait")) {
    out << "job " << job_id << " " << v1::Job::State_Name(job.state()) << "\n";
    return kExitOk;
  }
  v1::Job::State final_state = job.state();
  status = Watch(
      c, job_id, [](const v1::JobEvent&) {}, err, final_state);
  if (!status.ok()) return c.server.Fail(status, err);
  out << "job " << job_id << " " << v1::Job::State_Name(final_state) << "\n";
  return final_state == v1::Job::CANCELLED ? kExitOk : kExitFailure;
}

int StreamLogs(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  const std::string replica = c.args.Get("replica").value_or("master-0");
  const bool follow = c.args.Has("follow");
  client::Reconnector reconnector(c.server, c.reconnect_window, err,
                                  "the logs of job " + job_id);
  if (c.args.Has("trial")) {
    auto trial = IntegerFlag<int64_t>(c.args, "trial", 1);
    if (!trial.ok()) return FailStatus(trial.status(), err);
    int64_t offset = 0;
    grpc::Status status = client::CallWithReconnects(reconnector, [&] {
      return StreamLog(c, job_id, *trial, replica, follow, offset, reconnector,
                       out);
    });
    return status.ok() ? kExitOk : c.server.Fail(status, err);
  }
  v1::Job::State final_state = v1::Job::STATE_UNSPECIFIED;
  grpc::Status status =
      StreamJobLogs(c, job_id, replica, follow, reconnector, out, final_state);
  return status.ok() ? kExitOk : c.server.Fail(status, err);
}

int WatchCommand(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  std::string metric = "objective";
  v1::Job::State final_state = v1::Job::STATE_UNSPECIFIED;
  grpc::Status status = Watch(
      c, job_id,
      [&](const v1::JobEvent& event) {
        if (event.has_job() && event.job().has_training_input()) {
          metric = client::MetricTag(event.job());
        }
        auto time = client::TimeFromProto(event.time());
        out << (time ? FormatRfc3339(*time) + "  " : "")
            << client::DescribeJobEvent(event, metric) << "\n";
        out.flush();
      },
      err, final_state);
  if (!status.ok()) return c.server.Fail(status, err);
  return FinalStateExitCode(final_state);
}

struct Subcommand {
  std::string name;
  std::string usage;
  std::set<std::string> value_flags;
  std::set<std::string> bool_flags;
  bool takes_job = true;
  std::function<int(Invocation&, std::ostream&, std::ostream&)> run;
};

std::vector<Subcommand> Subcommands() {
  std::set<std::string> submit_flags = client::SubmitOverrideFlags();
  submit_flags.insert({"config", "format", "reconnect-seconds"});
  return {
      {"submit",
       Usage(kSubmitUsage, kSubmitExample, client::kSubmitOverrideHelp),
       submit_flags,
       {"wait", "stream-logs", "quiet"},
       true,
       Submit},
      {"list",
       Usage(kListUsage, kListExample),
       {"filter", "limit", "page-size", "format"},
       {},
       false,
       List},
      {"describe",
       Usage(kDescribeUsage, kDescribeExample),
       {"format"},
       {},
       true,
       Describe},
      {"cancel",
       Usage(kCancelUsage, kCancelExample),
       {"reconnect-seconds"},
       {"wait"},
       true,
       Cancel},
      {"update",
       Usage(kUpdateUsage, kUpdateExample),
       {"update-labels", "remove-labels", "format"},
       {"clear-labels"},
       true,
       Update},
      {"stream-logs",
       Usage(kStreamLogsUsage, kStreamLogsExample),
       {"trial", "replica", "reconnect-seconds"},
       {"follow"},
       true,
       StreamLogs},
      {"watch",
       Usage(kWatchUsage, kWatchExample),
       {"reconnect-seconds"},
       {},
       true,
       WatchCommand},
  };
}

// --help or -h before any `--` (after it, they are the trainer's).
bool WantsHelp(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

int UsageError(const std::string& command, std::string_view message,
               const std::string& usage, std::ostream& err) {
  err << "hptune jobs" << (command.empty() ? "" : " " + command) << ": "
      << message << "\n\n"
      << usage;
  return kExitUsage;
}

}  // namespace

int RunJobsCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
  if (args.empty()) return UsageError("", "missing command", kJobsUsage, err);
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    out << kJobsUsage;
    return kExitOk;
  }
  const std::vector<Subcommand> subcommands = Subcommands();
  auto sub = std::find_if(subcommands.begin(), subcommands.end(),
                          [&](const auto& s) { return s.name == args[0]; });
  if (sub == subcommands.end()) {
    return UsageError("", absl::StrCat("unknown command \"", args[0], "\""),
                      kJobsUsage, err);
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (WantsHelp(rest)) {
    out << sub->usage;
    return kExitOk;
  }
  RepeatedSlurmFlags slurm_flags;
  if (sub->name == "submit") slurm_flags = TakeRepeatedSlurmFlags(rest);
  std::set<std::string> value_flags = sub->value_flags;
  value_flags.insert(client::ConnectionFlags().begin(),
                     client::ConnectionFlags().end());
  auto parsed = ParseArgs(rest, value_flags, sub->bool_flags);
  if (!parsed.ok()) {
    return UsageError(sub->name, std::string(parsed.status().message()),
                      sub->usage, err);
  }
  const size_t want = sub->takes_job ? 1 : 0;
  if (parsed->positional.size() != want) {
    return UsageError(
        sub->name,
        want == 1 ? absl::StrCat("expected one JOB, got ",
                                 parsed->positional.size(), " arguments")
                  : absl::StrCat("takes no arguments, got \"",
                                 parsed->positional[0], "\""),
        sub->usage, err);
  }
  if (!parsed->after_dashes.empty() && sub->name != "submit") {
    return UsageError(sub->name, "takes no arguments after --", sub->usage,
                      err);
  }
  Invocation invocation;
  invocation.args = *std::move(parsed);
  invocation.slurm_flags = std::move(slurm_flags);
  if (auto format = invocation.args.Get("format")) {
    auto parsed_format = ParseOutputFormat(*format);
    if (!parsed_format.ok()) return FailStatus(parsed_format.status(), err);
    invocation.format = *parsed_format;
  }
  if (invocation.args.Has("reconnect-seconds")) {
    auto window = ReconnectWindow(invocation.args);
    if (!window.ok()) return FailStatus(window.status(), err);
    invocation.reconnect_window = *window;
  }
  auto server = client::Connect(invocation.args, client::ProcessEnv());
  if (!server.ok()) return FailStatus(server.status(), err);
  invocation.server = *std::move(server);
  invocation.stub = v1::JobService::NewStub(invocation.server.channel);
  return sub->run(invocation, out, err);
}

}  // namespace hptune::cli
