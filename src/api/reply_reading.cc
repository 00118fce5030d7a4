// A server's replies read back into domain values (conversion.h, "Replies"):
// what the server wrote needs no checks, so these cannot fail.
#include <optional>

#include "hptune/core/trial_state.h"
#include "src/api/conversion.h"

namespace hptune::api {
namespace {

Measurement StoredMeasurement(const v1::Measurement& m) {
  Measurement out;
  out.step = m.step();
  out.time = OptionalTimestampFromProto(m.time()).value_or(Timestamp{});
  for (const auto& [name, value] : m.metrics()) out.metrics[name] = value;
  out.attempt = m.attempt();
  return out;
}

ParameterValue StoredValue(const v1::ParameterValue& value) {
  switch (value.kind_case()) {
    case v1::ParameterValue::kIntValue:
      return ParameterValue::Integer(value.int_value());
    case v1::ParameterValue::kStringValue:
      return ParameterValue::Categorical(value.string_value());
    default:
      return ParameterValue::Double(value.double_value());
  }
}

}  // namespace

std::optional<Timestamp> OptionalTimestampFromProto(
    const google::protobuf::Timestamp& time) {
  if (time.seconds() == 0 && time.nanos() == 0) return std::nullopt;
  return TimestampFromProto(time);
}

Trial TrialFromProto(const v1::Trial& trial) {
  Trial out;
  out.number = trial.id();
  for (const auto& [name, value] : trial.parameters()) {
    out.parameters[name] = StoredValue(value);
  }
  out.state = ParseTrialState(v1::Trial::State_Name(trial.state()))
                  .value_or(TrialState::kRequested);
  for (const v1::Measurement& m : trial.measurements()) {
    out.measurements.push_back(StoredMeasurement(m));
  }
  if (trial.has_final_measurement()) {
    out.final_measurement = StoredMeasurement(trial.final_measurement());
  }
  out.stopped_early = trial.stopped_early();
  out.reason = trial.reason();
  out.client_id = trial.client_id();
  out.origin = trial.origin();
  out.attempt = trial.attempt();
  out.create_time =
      OptionalTimestampFromProto(trial.create_time()).value_or(Timestamp{});
  out.start_time = OptionalTimestampFromProto(trial.start_time());
  out.end_time = OptionalTimestampFromProto(trial.end_time());
  return out;
}

JobRecord JobRecordFromProto(const v1::Job& job) {
  JobRecord record;
  record.job_id = job.job_id();
  record.state = JobStateFromProto(job.state()).value_or(JobState::kQueued);
  record.error_message = job.error_message();
  record.labels = JobLabels(job.labels().begin(), job.labels().end());
  record.create_time = TimestampFromProto(job.create_time());
  if (job.has_start_time()) {
    record.start_time = TimestampFromProto(job.start_time());
  }
  if (job.has_end_time()) record.end_time = TimestampFromProto(job.end_time());
  return record;
}

}  // namespace hptune::api
