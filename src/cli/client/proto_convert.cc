#include "src/cli/client/proto_convert.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "hptune/core/status.h"
#include "nlohmann/json.hpp"
#include "src/api/conversion.h"

namespace hptune::cli::client {
namespace {

Measurement MeasurementFromProto(const v1::Measurement& m) {
  Measurement out;
  out.step = m.step();
  out.time = TimeFromProto(m.time()).value_or(Timestamp{});
  for (const auto& [name, value] : m.metrics()) out.metrics[name] = value;
  out.attempt = m.attempt();
  return out;
}

}  // namespace

std::string MessageToJson(const google::protobuf::Message& message,
                          bool pretty) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = false;
  // Only a message this client built or parsed reaches here: it converts.
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!pretty) return json;
  return nlohmann::ordered_json::parse(json).dump(2);
}

absl::StatusOr<StudyRecord> StudyFromProto(const v1::Study& study) {
  StudyRecord out;
  out.name = study.name();
  auto spec = api::StudySpecFromProto(study.spec(), "spec");
  if (!spec.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the server sent a study spec hptune cannot read:\n",
                     spec.status().message()));
  }
  out.spec = *std::move(spec);
  out.state = api::StudyStateFromProto(study.state());
  out.reason = study.state_reason();
  out.seed = study.seed();
  out.create_time = TimeFromProto(study.create_time()).value_or(Timestamp{});
  out.resumed_trials = study.resumed_trials();
  return out;
}

Trial TrialFromProto(const v1::Trial& trial) {
  Trial out;
  out.number = trial.id();
  for (const auto& [name, value] : trial.parameters()) {
    switch (value.kind_case()) {
      case v1::ParameterValue::kIntValue:
        out.parameters[name] = ParameterValue::Integer(value.int_value());
        break;
      case v1::ParameterValue::kStringValue:
        out.parameters[name] =
            ParameterValue::Categorical(value.string_value());
        break;
      default:
        out.parameters[name] = ParameterValue::Double(value.double_value());
        break;
    }
  }
  out.state = ParseTrialState(v1::Trial::State_Name(trial.state()))
                  .value_or(TrialState::kRequested);
  for (const v1::Measurement& m : trial.measurements()) {
    out.measurements.push_back(MeasurementFromProto(m));
  }
  if (trial.has_final_measurement()) {
    out.final_measurement = MeasurementFromProto(trial.final_measurement());
  }
  out.stopped_early = trial.stopped_early();
  out.reason = trial.reason();
  out.client_id = trial.client_id();
  out.origin = trial.origin();
  out.attempt = trial.attempt();
  out.create_time = TimeFromProto(trial.create_time()).value_or(Timestamp{});
  out.start_time = TimeFromProto(trial.start_time());
  out.end_time = TimeFromProto(trial.end_time());
  return out;
}

std::optional<Timestamp> TimeFromProto(
    const google::protobuf::Timestamp& time) {
  if (time.seconds() == 0 && time.nanos() == 0) return std::nullopt;
  return api::TimestampFromProto(time);
}

}  // namespace hptune::cli::client
