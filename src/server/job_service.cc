#include "src/server/job_service.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "hptune/env/users.h"
#include "hptune/launch/trainer_check.h"
#include "src/api/conversion.h"
#include "src/server/call.h"
#include "src/server/request_limits.h"

namespace hptune::server {

using api::JobLabelsFromProto;
using api::JobSpecFromProto;
using api::JobStateToProto;
using api::JobToProto;
using api::SlurmOptionsFromProto;
using api::TimestampToProto;
using api::TrialOutputState;
using api::TrialToOutput;

namespace {

// How often streams look at the store and the logs when nothing woke them.
constexpr std::chrono::milliseconds kStreamPoll{200};
constexpr int64_t kDefaultLogChunk = 1 << 20;
constexpr int64_t kMaxLogChunk = 4 << 20;

std::string Quoted(std::string_view text) {
  return absl::StrCat("\"", std::string(text), "\"");
}

google::protobuf::Timestamp Now(Env& env) {
  return TimestampToProto(env.Now());
}

struct LogRequest {
  std::filesystem::path path;
  std::string study;
  int64_t trial = 0;
  int64_t offset = 0;
  int64_t max_bytes = kDefaultLogChunk;
};

// Checks a logs request and finds the file.
// With `follow`, a trial the job has yet to create is waited for: a client
// may follow trial 1 as soon as it submits. NOT_FOUND at once when the job
// has ended or the trial is beyond maxTrials; CANCELLED when the client
// goes away.
absl::Status WaitForTrial(Env& env, store::Store& store, const JobRecord& job,
                          int64_t trial,
                          const std::function<bool()>& is_cancelled) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store.GetStudy(job.study_name));
  while (true) {
    absl::StatusOr<Trial> found = store.GetTrial(job.study_name, trial);
    if (found.ok() || !absl::IsNotFound(found.status())) {
      return found.status();
    }
    HPTUNE_ASSIGN_OR_RETURN(JobRecord now, store.GetJob(job.job_id));
    if (IsTerminal(now.state) || trial > study.TrialBudget()) {
      return found.status();
    }
    if (is_cancelled()) {
      return absl::CancelledError("the client cancelled the log stream");
    }
    env.SleepFor(kStreamPoll);
  }
}

absl::StatusOr<LogRequest> ResolveLog(
    Env& env, store::Store& store, const std::filesystem::path& runs_dir,
    const v1::GetTrialLogsRequest& request,
    const std::function<bool()>& is_cancelled = [] { return false; }) {
  HPTUNE_RETURN_IF_ERROR(CheckName("job_id", request.job_id()));
  if (request.trial_id() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial_id: must be at least 1, got ", request.trial_id()));
  }
  const std::string replica =
      request.replica().empty() ? "master-0" : request.replica();
  HPTUNE_RETURN_IF_ERROR(CheckLength("replica", replica, 64));
  if (!IsReplicaName(replica)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replica: must be master-0, chief-0, worker-N, ps-N or evaluator-N, "
        "got ",
        Quoted(replica)));
  }
  if (request.offset() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("offset: must be at least 0, got ", request.offset()));
  }
  if (request.max_bytes() < 0 || request.max_bytes() > kMaxLogChunk) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_bytes: must be 0 (1 MiB) to ", kMaxLogChunk, ", got ",
                     request.max_bytes()));
  }
  HPTUNE_ASSIGN_OR_RETURN(JobRecord job, store.GetJob(request.job_id()));
  if (request.follow()) {
    HPTUNE_RETURN_IF_ERROR(
        WaitForTrial(env, store, job, request.trial_id(), is_cancelled));
  }
  LogRequest log{.path = RunsLayout(runs_dir).ReplicaLog(
                     request.job_id(), request.trial_id(), replica),
                 .study = job.study_name,
                 .trial = request.trial_id(),
                 .offset = request.offset(),
                 .max_bytes = request.max_bytes() == 0 ? kDefaultLogChunk
                                                       : request.max_bytes()};
  HPTUNE_RETURN_IF_ERROR(
      store.GetTrial(job.study_name, request.trial_id()).status());
  return log;
}

// Reads up to max_bytes from `offset`; an absent file reads as empty.
absl::StatusOr<v1::LogChunk> ReadChunk(Env& env, const LogRequest& log,
                                       int64_t offset) {
  v1::LogChunk chunk;
  chunk.set_offset(offset);
  chunk.set_next_offset(offset);
  absl::StatusOr<FileChunk> read =
      env.ReadFileChunk(log.path, offset, log.max_bytes, "log");
  if (absl::IsNotFound(read.status())) return chunk;
  HPTUNE_RETURN_IF_ERROR(read.status());
  std::string data = std::move(read->data);
  // Past a hole a capped log's cut punched (Env::ReadFileChunk).
  chunk.set_offset(std::max(offset, read->offset));
  chunk.set_next_offset(chunk.offset() + static_cast<int64_t>(data.size()));
  chunk.set_data(std::move(data));
  return chunk;
}

bool TrialEnded(store::Store& store, const LogRequest& log) {
  auto trial = store.GetTrial(log.study, log.trial);
  return !trial.ok() || IsTerminal(trial->state);
}

using LabelFilter = google::protobuf::Map<std::string, std::string>;

// Each key must be a label key and each value a label value or "*", so that
// a filter that could match no job is an error rather than an empty list.
absl::Status CheckLabelFilter(const LabelFilter& filter) {
  JobLabels as_labels;
  for (const auto& [key, value] : filter) {
    as_labels.emplace(key, value == "*" ? "" : value);
  }
  return FieldErrorsToStatus(ValidateJobLabels(as_labels, "labels"));
}

// gcloud's order: clear, then update, then remove.
absl::Status EditLabels(bool clear, const JobLabels& updates,
                        const std::vector<std::string>& removals,
                        JobLabels& labels) {
  if (clear) labels.clear();
  for (const auto& [key, value] : updates) labels[key] = value;
  for (const std::string& key : removals) labels.erase(key);
  return FieldErrorsToStatus(ValidateJobLabels(labels, "labels"));
}

bool HasLabels(const JobRecord& job, const LabelFilter& filter) {
  for (const auto& [key, value] : filter) {
    auto it = job.labels.find(key);
    if (it == job.labels.end()) return false;
    if (value != "*" && it->second != value) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<v1::Job> JobService::DescribeJob(const JobRecord& job,
                                                bool with_trials) {
  auto study = store_.GetStudy(job.study_name);
  if (!study.ok()) {
    if (!absl::IsNotFound(study.status())) return study.status();
    return JobToProto(job, nullptr, {}, false);
  }
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          with_trials
                              ? store_.ListTrials(job.study_name)
                              : store_.ListTrialSummaries(job.study_name));
  if (!with_trials) return JobToProto(job, &study->spec, trials, false);
  return JobToProto(job, &study->spec, trials, true,
                    jobs_.TrialsNotRunningYet(job.job_id, trials));
}

absl::Status JobService::CheckBackend(const std::string& asked) const {
  if (asked.empty() || asked == backend_) return absl::OkStatus();
  if (asked != "local" && asked != "slurm") {
    return absl::InvalidArgumentError(absl::StrCat(
        "backend: must be local, slurm or empty, got \"", asked, "\""));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "backend: the job asks for ", asked, ", but this server runs trials on ",
      backend_, " (start it with `hptune serve --backend ", asked,
      "`, or leave the backend out to take the server's)"));
}

absl::Status JobService::CheckTrainerAs(const JobSpec& spec,
                                        const JobOwner& owner) const {
  // As the user the replicas will run as: the files the checks open and the
  // messages they give (a script's #! line, the modules of a directory)
  // are what that user could see, never what only root may.
  std::optional<ScopedFileIdentity> as_user;
  if (owner.known()) {
    as_user.emplace(LookUpUser(static_cast<uid_t>(owner.uid),
                               static_cast<gid_t>(owner.gid)));
  }
  HPTUNE_RETURN_IF_ERROR(policy_.Check(spec));
  // Trials run on this machine: a missing module or program is refused
  // now, not found by every launch.
  if (backend_ == "local")
    HPTUNE_RETURN_IF_ERROR(launch::CheckTrainer(env_, spec));
  return absl::OkStatus();
}

grpc::Status JobService::SubmitJob(grpc::ServerContext* context,
                                   const v1::SubmitJobRequest* request,
                                   v1::Job* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("job_id", request->job_id()));
    const bool vertex = !request->vertex_job().empty();
    if (vertex && request->has_training_input()) {
      return absl::InvalidArgumentError(
          "vertex_job: cannot be used with training_input: give one");
    }
    if (!vertex && !request->has_training_input()) {
      return absl::InvalidArgumentError(
          "training_input: required (or vertex_job)");
    }
    HPTUNE_RETURN_IF_ERROR(CheckBackend(request->backend()));
    HPTUNE_ASSIGN_OR_RETURN(
        JobSpec spec, vertex ? api::JobSpecFromVertexJob(request->vertex_job(),
                                                         request->job_id())
                             : JobSpecFromProto(request->training_input(),
                                                request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(JobLabels labels,
                            JobLabelsFromProto(request->labels()));
    for (auto& [key, value] : labels) spec.labels[key] = std::move(value);
    HPTUNE_RETURN_IF_ERROR(
        FieldErrorsToStatus(ValidateJobLabels(spec.labels, "labels")));
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    HPTUNE_ASSIGN_OR_RETURN(const JobOwner owner, access_.OwnerFor(caller));
    HPTUNE_RETURN_IF_ERROR(CheckTrainerAs(spec, owner));
    // The earlier job's results are read into this one's study.
    // (A job without hyperparameters has no study: Submit refuses it.)
    if (spec.study && !spec.study->resume_previous_job_id.empty()) {
      HPTUNE_RETURN_IF_ERROR(
          access_.FindJob(caller, spec.study->resume_previous_job_id).status());
    }
    if (request->has_slurm()) {
      HPTUNE_ASSIGN_OR_RETURN(spec.slurm,
                              SlurmOptionsFromProto(request->slurm()));
      if (!spec.slurm.empty() && backend_ != "slurm") {
        return absl::FailedPreconditionError(absl::StrCat(
            "slurm: the job has Slurm options, but this server runs trials "
            "on ",
            backend_,
            " (start it with `hptune serve --backend slurm`, or leave the "
            "slurm options out)"));
      }
    }
    std::optional<JobRecord> job;
    HPTUNE_RETURN_IF_ERROR(quotas_.CreateStudy(caller, [&]() -> absl::Status {
      HPTUNE_ASSIGN_OR_RETURN(job, jobs_.Submit(spec, owner, caller.uid));
      return absl::OkStatus();
    }));
    // The job just stored is the spec in hand: described without a decode.
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                            store_.ListTrialSummaries(job->study_name));
    *reply = JobToProto(*job, &spec, spec.study ? &*spec.study : nullptr,
                        trials, false);
    return absl::OkStatus();
  });
}

grpc::Status JobService::GetJob(grpc::ServerContext* context,
                                const v1::GetJobRequest* request,
                                v1::Job* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("job_id", request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    HPTUNE_ASSIGN_OR_RETURN(JobRecord job,
                            access_.FindJob(caller, request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(*reply, DescribeJob(job, !request->omit_trials()));
    return absl::OkStatus();
  });
}

grpc::Status JobService::ListJobs(grpc::ServerContext* context,
                                  const v1::ListJobsRequest* request,
                                  v1::ListJobsResponse* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(size_t page_size,
                            CheckPageSize(request->page_size()));
    HPTUNE_ASSIGN_OR_RETURN(size_t offset,
                            ParsePageToken(request->page_token()));
    HPTUNE_RETURN_IF_ERROR(
        CheckLength("job_id_prefix", request->job_id_prefix(), kMaxNameLength));
    HPTUNE_RETURN_IF_ERROR(CheckLabelFilter(request->labels()));
    std::set<int> states;
    for (int state : request->states()) {
      if (!v1::Job::State_IsValid(state) ||
          state == v1::Job::STATE_UNSPECIFIED) {
        return absl::InvalidArgumentError(
            absl::StrCat("states: not a job state, got ", state));
      }
      states.insert(state);
    }
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    HPTUNE_ASSIGN_OR_RETURN(std::vector<JobRecord> all, store_.ListJobs());
    std::vector<const JobRecord*> matching;
    // Newest first: the store lists in creation order.
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      if (!access_.MaySee(caller, *it)) continue;
      if (!states.empty() && !states.contains(JobStateToProto(it->state))) {
        continue;
      }
      if (it->job_id.rfind(request->job_id_prefix(), 0) != 0) continue;
      if (!HasLabels(*it, request->labels())) continue;
      matching.push_back(&*it);
    }
    for (size_t i = offset; i < matching.size() && i < offset + page_size;
         ++i) {
      HPTUNE_ASSIGN_OR_RETURN(*reply->add_jobs(),
                              DescribeJob(*matching[i], false));
    }
    if (offset + page_size < matching.size()) {
      reply->set_next_page_token(std::to_string(offset + page_size));
    }
    return absl::OkStatus();
  });
}

grpc::Status JobService::CancelJob(grpc::ServerContext* context,
                                   const v1::CancelJobRequest* request,
                                   v1::Job* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("job_id", request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    HPTUNE_RETURN_IF_ERROR(access_.FindJob(caller, request->job_id()).status());
    HPTUNE_ASSIGN_OR_RETURN(JobRecord job, jobs_.Cancel(request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(*reply, DescribeJob(job, false));
    return absl::OkStatus();
  });
}

grpc::Status JobService::DeleteJob(grpc::ServerContext* context,
                                   const v1::DeleteJobRequest* request,
                                   google::protobuf::Empty* /*reply*/) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("job_id", request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    HPTUNE_RETURN_IF_ERROR(access_.FindJob(caller, request->job_id()).status());
    return jobs_.Delete(request->job_id());
  });
}

grpc::Status JobService::UpdateJob(grpc::ServerContext* context,
                                   const v1::UpdateJobRequest* request,
                                   v1::Job* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("job_id", request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    HPTUNE_RETURN_IF_ERROR(access_.FindJob(caller, request->job_id()).status());
    if (request->update_labels().empty() && request->remove_labels().empty() &&
        !request->clear_labels()) {
      return absl::InvalidArgumentError(
          "nothing to update: give update_labels, remove_labels or "
          "clear_labels");
    }
    JobLabels updates(request->update_labels().begin(),
                      request->update_labels().end());
    HPTUNE_RETURN_IF_ERROR(
        FieldErrorsToStatus(ValidateJobLabels(updates, "update_labels")));
    const std::vector<std::string> removals(request->remove_labels().begin(),
                                            request->remove_labels().end());
    HPTUNE_RETURN_IF_ERROR(
        FieldErrorsToStatus(ValidateJobLabelKeys(removals, "remove_labels")));
    HPTUNE_ASSIGN_OR_RETURN(
        JobRecord job, store_.UpdateJob(request->job_id(), [&](JobRecord& j) {
          return EditLabels(request->clear_labels(), updates, removals,
                            j.labels);
        }));
    HPTUNE_ASSIGN_OR_RETURN(*reply, DescribeJob(job, /*with_trials=*/false));
    return absl::OkStatus();
  });
}

grpc::Status JobService::WatchJob(grpc::ServerContext* context,
                                  const v1::WatchJobRequest* request,
                                  grpc::ServerWriter<v1::JobEvent>* writer) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("job_id", request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    HPTUNE_ASSIGN_OR_RETURN(JobRecord job,
                            access_.FindJob(caller, request->job_id()));
    // What the client has been told: the job's state and each trial's (a
    // trial leaving the backend's queue is news, so QUEUED counts).
    std::optional<JobState> sent_state;
    std::map<int64_t, v1::Job::State> sent_trials;
    uint64_t version = jobs_.version();
    while (!context->IsCancelled()) {
      HPTUNE_ASSIGN_OR_RETURN(job, store_.GetJob(request->job_id()));
      auto study = store_.GetStudy(job.study_name);
      std::vector<Trial> trials;
      if (study.ok()) {
        HPTUNE_ASSIGN_OR_RETURN(trials,
                                store_.ListTrialSummaries(job.study_name));
      }
      const std::set<int64_t> waiting =
          jobs_.TrialsNotRunningYet(job.job_id, trials);
      const bool first = !sent_state.has_value();
      for (const Trial& trial : trials) {
        const bool waits = waiting.contains(trial.number);
        const v1::Job::State state = TrialOutputState(trial, waits);
        auto [it, added] = sent_trials.try_emplace(trial.number, state);
        if (!added && it->second == state) continue;
        it->second = state;
        if (first) continue;
        v1::JobEvent event;
        *event.mutable_time() = Now(env_);
        *event.mutable_trial() = TrialToOutput(
            trial, study.ok() ? study->spec.metric_tag() : std::string(),
            waits);
        if (!writer->Write(event)) return absl::OkStatus();
      }
      if (first || *sent_state != job.state) {
        v1::JobEvent event;
        *event.mutable_time() = Now(env_);
        *event.mutable_job() = JobToProto(
            job, study.ok() ? &study->spec : nullptr, trials, false, waiting);
        if (!writer->Write(event)) return absl::OkStatus();
        sent_state = job.state;
      }
      if (IsTerminal(job.state)) return absl::OkStatus();
      version = jobs_.WaitForChange(version, kStreamPoll);
    }
    return absl::CancelledError("the client cancelled the watch");
  });
}

grpc::Status JobService::GetTrialLogs(grpc::ServerContext* context,
                                      const v1::GetTrialLogsRequest* request,
                                      v1::LogChunk* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("job_id", request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    HPTUNE_RETURN_IF_ERROR(access_.FindJob(caller, request->job_id()).status());
    HPTUNE_ASSIGN_OR_RETURN(
        LogRequest log,
        ResolveLog(env_, store_, jobs_.options().runs_dir, *request));
    const bool ended = TrialEnded(store_, log);
    HPTUNE_ASSIGN_OR_RETURN(*reply, ReadChunk(env_, log, log.offset));
    if (reply->data().empty() && !env_.Exists(log.path) && ended) {
      return absl::NotFoundError(
          absl::StrCat("job ", Quoted(request->job_id()), " trial ", log.trial,
                       ": no log ", Quoted(log.path.filename().string())));
    }
    reply->set_end_of_log(ended && static_cast<int64_t>(reply->data().size()) <
                                       log.max_bytes);
    return absl::OkStatus();
  });
}

grpc::Status JobService::StreamTrialLogs(
    grpc::ServerContext* context, const v1::GetTrialLogsRequest* request,
    grpc::ServerWriter<v1::LogChunk>* writer) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("job_id", request->job_id()));
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    HPTUNE_RETURN_IF_ERROR(access_.FindJob(caller, request->job_id()).status());
    HPTUNE_ASSIGN_OR_RETURN(
        LogRequest log,
        ResolveLog(env_, store_, jobs_.options().runs_dir, *request,
                   [context] { return context->IsCancelled(); }));
    int64_t offset = log.offset;
    while (!context->IsCancelled()) {
      // Read "ended" before the data: output written before the trial ended
      // is then certainly in this read.
      const bool ended = TrialEnded(store_, log);
      HPTUNE_ASSIGN_OR_RETURN(v1::LogChunk chunk, ReadChunk(env_, log, offset));
      const bool more = !chunk.data().empty();
      offset = chunk.next_offset();
      const bool last =
          !more || static_cast<int64_t>(chunk.data().size()) < log.max_bytes;
      if (last && (ended || !request->follow())) {
        chunk.set_end_of_log(ended);
        writer->Write(chunk);
        return absl::OkStatus();
      }
      if (more && !writer->Write(chunk)) return absl::OkStatus();
      if (!more) env_.SleepFor(kStreamPoll);
    }
    return absl::CancelledError("the client cancelled the log stream");
  });
}

}  // namespace hptune::server
