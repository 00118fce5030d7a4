#include "hptune/core/job.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"

namespace hptune {
namespace {

constexpr std::array<std::pair<ScaleTier, std::string_view>, 6> kTiers = {{
    {ScaleTier::kBasic, "BASIC"},
    {ScaleTier::kBasicGpu, "BASIC_GPU"},
    {ScaleTier::kBasicTpu, "BASIC_TPU"},
    {ScaleTier::kStandard1, "STANDARD_1"},
    {ScaleTier::kPremium1, "PREMIUM_1"},
    {ScaleTier::kCustom, "CUSTOM"},
}};
constexpr std::array<std::pair<JobState, std::string_view>, 7> kJobStates = {{
    {JobState::kQueued, "QUEUED"},
    {JobState::kPreparing, "PREPARING"},
    {JobState::kRunning, "RUNNING"},
    {JobState::kSucceeded, "SUCCEEDED"},
    {JobState::kFailed, "FAILED"},
    {JobState::kCancelling, "CANCELLING"},
    {JobState::kCancelled, "CANCELLED"},
}};

}  // namespace

std::string_view ToString(ScaleTier tier) {
  for (const auto& [t, name] : kTiers) {
    if (t == tier) return name;
  }
  return "UNKNOWN";
}

std::optional<ScaleTier> ParseScaleTier(std::string_view text) {
  for (const auto& [t, name] : kTiers) {
    if (name == text) return t;
  }
  return std::nullopt;
}

std::string_view ToString(SpecDialect dialect) {
  return dialect == SpecDialect::kVertex ? "VERTEX" : "AI_PLATFORM";
}

std::optional<SpecDialect> ParseSpecDialect(std::string_view text) {
  if (text == "AI_PLATFORM") return SpecDialect::kAiPlatform;
  if (text == "VERTEX") return SpecDialect::kVertex;
  return std::nullopt;
}

std::string_view ToString(TaskType type) {
  switch (type) {
    case TaskType::kMaster:
      return "master";
    case TaskType::kWorker:
      return "worker";
    case TaskType::kParameterServer:
      return "ps";
    case TaskType::kEvaluator:
      return "evaluator";
  }
  return "unknown";
}

StudySpec RunStudyOf(const JobSpec& job) {
  if (job.study) return *job.study;
  StudySpec one_run;
  one_run.max_trials = 1;
  one_run.max_parallel_trials = 1;
  one_run.max_failed_trials = 1;
  return one_run;
}

bool IsOneRunStudy(const StudySpec& spec) {
  return spec == RunStudyOf(JobSpec{});
}

std::string JobSpec::PoolConfigPath(TaskType type) const {
  if (dialect == SpecDialect::kVertex) {
    // A Vertex job without a study was written as a CustomJob.
    return absl::StrCat(study ? "trialJobSpec" : "jobSpec", ".workerPoolSpecs[",
                        static_cast<int>(type), "]");
  }
  switch (type) {
    case TaskType::kMaster:
      break;
    case TaskType::kWorker:
      return "trainingInput.workerConfig";
    case TaskType::kParameterServer:
      return "trainingInput.parameterServerConfig";
    case TaskType::kEvaluator:
      return "trainingInput.evaluatorConfig";
  }
  return "trainingInput.masterConfig";
}

const TaskPool& JobSpec::pool(TaskType type) const {
  switch (type) {
    case TaskType::kMaster:
      return master;
    case TaskType::kWorker:
      return worker;
    case TaskType::kParameterServer:
      return parameter_server;
    case TaskType::kEvaluator:
      return evaluator;
  }
  return master;
}

bool JobSpec::Runs(TaskType type) const {
  return type == TaskType::kMaster || pool(type).count > 0;
}

bool JobSpec::RunsHostTrainer() const {
  for (TaskType type : kTaskTypes) {
    if (Runs(type) && pool(type).container.empty()) return true;
  }
  return false;
}

std::string_view ToString(JobState state) {
  for (const auto& [s, name] : kJobStates) {
    if (s == state) return name;
  }
  return "STATE_UNSPECIFIED";
}

std::optional<JobState> ParseJobState(std::string_view text) {
  for (const auto& [s, name] : kJobStates) {
    if (name == text) return s;
  }
  return std::nullopt;
}

bool RunsPathPython(const JobSpec& job) {
  if (job.command.empty()) return !job.module_name.empty();
  return job.command.front() == "python3" || job.command.front() == "python";
}

std::string TrainerProgram(const JobSpec& job) {
  if (RunsPathPython(job) && !job.python_interpreter.empty()) {
    return job.python_interpreter;
  }
  return job.command.empty() ? "python3" : job.command.front();
}

bool IsTerminal(JobState state) {
  return state == JobState::kSucceeded || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

absl::Status CheckJobTransition(JobState from, JobState to) {
  bool legal = false;
  switch (from) {
    case JobState::kQueued:
    case JobState::kPreparing:
      legal = to == JobState::kFailed || to == JobState::kCancelling ||
              to == JobState::kCancelled ||
              (from == JobState::kQueued && to == JobState::kPreparing) ||
              (from == JobState::kPreparing && to == JobState::kRunning);
      break;
    case JobState::kRunning:
      legal = to == JobState::kSucceeded || to == JobState::kFailed ||
              to == JobState::kCancelling;
      break;
    case JobState::kCancelling:
      legal = to == JobState::kCancelled || to == JobState::kFailed;
      break;
    default:  // Terminal states are final.
      legal = false;
  }
  if (legal) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("job cannot go from ", std::string(ToString(from)), " to ",
                   std::string(ToString(to)),
                   IsTerminal(from) ? " (it has already ended)" : ""));
}

absl::Status JobRecord::TransitionTo(JobState to, Timestamp now) {
  HPTUNE_RETURN_IF_ERROR(CheckJobTransition(state, to));
  state = to;
  if (to == JobState::kRunning && !start_time) start_time = now;
  if (IsTerminal(to)) end_time = now;
  return absl::OkStatus();
}

StudyRecord WithJobOutcome(StudyRecord study, const JobRecord& job) {
  if (job.state == JobState::kFailed) {
    study.state = StudyState::kFailed;
    study.reason = job.error_message.empty()
                       ? "job FAILED"
                       : absl::StrCat("job FAILED: ", job.error_message);
  } else if (job.state == JobState::kCancelled) {
    study.state = StudyState::kCancelled;
    study.reason = "job CANCELLED";
  }
  return study;
}

}  // namespace hptune
