// The enums and timestamps of hptune.v1 (conversion.h); studies and trials
// are converted in study_conversion.cc, jobs in job_conversion.cc.
#include "src/api/conversion.h"

namespace hptune::api {

google::protobuf::Timestamp TimestampToProto(Timestamp t) {
  const int64_t micros = ToUnixMicros(t);
  google::protobuf::Timestamp proto;
  int64_t seconds = micros / 1000000;
  int64_t rest = micros % 1000000;
  if (rest < 0) {
    rest += 1000000;
    --seconds;
  }
  proto.set_seconds(seconds);
  proto.set_nanos(static_cast<int32_t>(rest * 1000));
  return proto;
}

Timestamp TimestampFromProto(const google::protobuf::Timestamp& t) {
  return FromUnixMicros(t.seconds() * 1000000 + t.nanos() / 1000);
}

v1::Trial::State TrialStateToProto(TrialState state) {
  switch (state) {
    case TrialState::kRequested:
      return v1::Trial::REQUESTED;
    case TrialState::kActive:
      return v1::Trial::ACTIVE;
    case TrialState::kStopping:
      return v1::Trial::STOPPING;
    case TrialState::kSucceeded:
      return v1::Trial::SUCCEEDED;
    case TrialState::kInfeasible:
      return v1::Trial::INFEASIBLE;
    case TrialState::kFailed:
      return v1::Trial::FAILED;
    case TrialState::kCancelled:
      return v1::Trial::CANCELLED;
  }
  return v1::Trial::STATE_UNSPECIFIED;
}

std::optional<TrialState> TrialStateFromProto(v1::Trial::State state) {
  for (TrialState s :
       {TrialState::kRequested, TrialState::kActive, TrialState::kStopping,
        TrialState::kSucceeded, TrialState::kInfeasible, TrialState::kFailed,
        TrialState::kCancelled}) {
    if (TrialStateToProto(s) == state) return s;
  }
  return std::nullopt;
}

v1::Job::State JobStateToProto(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return v1::Job::QUEUED;
    case JobState::kPreparing:
      return v1::Job::PREPARING;
    case JobState::kRunning:
      return v1::Job::RUNNING;
    case JobState::kSucceeded:
      return v1::Job::SUCCEEDED;
    case JobState::kFailed:
      return v1::Job::FAILED;
    case JobState::kCancelling:
      return v1::Job::CANCELLING;
    case JobState::kCancelled:
      return v1::Job::CANCELLED;
  }
  return v1::Job::STATE_UNSPECIFIED;
}

std::optional<JobState> JobStateFromProto(v1::Job::State state) {
  for (JobState s :
       {JobState::kQueued, JobState::kPreparing, JobState::kRunning,
        JobState::kSucceeded, JobState::kFailed, JobState::kCancelling,
        JobState::kCancelled}) {
    if (JobStateToProto(s) == state) return s;
  }
  return std::nullopt;
}

}  // namespace hptune::api
