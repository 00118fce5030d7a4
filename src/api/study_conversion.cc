// hptune.v1's study specs, studies, measurements, parameters and trials
// (conversion.h, "Studies and trials").
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/api/conversion.h"

namespace hptune::api {
namespace {

// The convex rule's block as the wire's message, its integer settings under
// Vertex's names; false, leaving `out` partly set, when the block holds what
// the message cannot carry (which the rule then refuses, so it must arrive).
bool ConvexSettingsToProto(const StoppingSettings& settings,
                           v1::ConvexStoppingSettings& out) {
  for (const auto& [name, value] : settings.values) {
    const int64_t* n = std::get_if<int64_t>(&value);
    if (n == nullptr) return false;
    if (name == "maxStepCount") {
      out.set_max_step_count(*n);
    } else if (name == "minStepCount") {
      out.set_min_step_count(*n);
    } else if (name == "minMeasurementCount" && *n == int32_t(*n)) {
      out.set_min_measurement_count(static_cast<int32_t>(*n));
    } else {
      return false;
    }
  }
  return true;
}

// A rule's settings block as a Struct, each value of its own kind.
void SettingsToProto(const StoppingSettings& settings,
                     google::protobuf::Struct& out) {
  for (const auto& [name, value] : settings.values) {
    google::protobuf::Value& field = (*out.mutable_fields())[name];
    if (const int64_t* n = std::get_if<int64_t>(&value)) {
      field.set_number_value(static_cast<double>(*n));
    } else if (const double* x = std::get_if<double>(&value)) {
      field.set_number_value(*x);
    } else if (const bool* b = std::get_if<bool>(&value)) {
      field.set_bool_value(*b);
    } else {
      field.set_string_value(std::get<std::string>(value));
    }
  }
}

// Parameter `index` of `space` and, nested, its conditional children.
void ParameterSpecToProto(const SearchSpace& space, int index,
                          v1::ParameterSpec* out) {
  const ParameterSpec& p = space.parameters()[index];
  out->set_parameter_name(p.name);
  switch (p.type) {
    case ParameterType::kDouble:
      out->set_type(v1::ParameterSpec::DOUBLE);
      break;
    case ParameterType::kInteger:
      out->set_type(v1::ParameterSpec::INTEGER);
      break;
    case ParameterType::kDiscrete:
      out->set_type(v1::ParameterSpec::DISCRETE);
      break;
    case ParameterType::kCategorical:
      out->set_type(v1::ParameterSpec::CATEGORICAL);
      break;
  }
  if (p.type == ParameterType::kDouble || p.type == ParameterType::kInteger) {
    out->set_min_value(p.min_value);
    out->set_max_value(p.max_value);
  }
  for (double v : p.discrete_values) out->add_discrete_values(v);
  for (const std::string& v : p.categorical_values) {
    out->add_categorical_values(v);
  }
  if (p.type != ParameterType::kCategorical) {
    out->set_scale_type(
        static_cast<v1::ParameterSpec::ScaleType>(static_cast<int>(p.scale)));
  }
  out->set_first_trial(static_cast<int32_t>(p.first_trial));  // Validated.
  for (int child : space.ChildIndices(index)) {
    const ParentCondition& condition = *space.parameters()[child].condition;
    v1::ConditionalParameterSpec* entry =
        out->add_conditional_parameter_specs();
    switch (p.type) {
      case ParameterType::kDiscrete:
        for (double v : condition.discrete_values) {
          entry->mutable_parent_discrete_values()->add_values(v);
        }
        break;
      case ParameterType::kInteger:
        for (int64_t v : condition.int_values) {
          entry->mutable_parent_int_values()->add_values(v);
        }
        break;
      case ParameterType::kCategorical:
        for (const std::string& v : condition.categorical_values) {
          entry->mutable_parent_categorical_values()->add_values(v);
        }
        break;
      case ParameterType::kDouble:
        break;  // Refused by ValidateStudySpec.
    }
    ParameterSpecToProto(space, child, entry->mutable_parameter_spec());
  }
}

}  // namespace

v1::StudySpec StudySpecToProto(const StudySpec& spec) {
  v1::StudySpec proto;
  const auto goal = [](Goal goal) {
    return goal == Goal::kMinimize ? v1::StudySpec::MINIMIZE
                                   : v1::StudySpec::MAXIMIZE;
  };
  if (!spec.metrics_listed()) {
    proto.set_goal(goal(spec.goal()));
    proto.set_hyperparameter_metric_tag(spec.metric_tag());
  } else {
    for (const MetricSpec& m : spec.AllMetrics()) {
      v1::MetricSpec* metric = proto.add_metrics();
      metric->set_metric_id(m.id);
      metric->set_goal(goal(m.goal));
      if (m.safety_threshold) {
        metric->set_safety_threshold(*m.safety_threshold);
      }
      if (m.desired_min_safe_trials_fraction) {
        metric->set_desired_min_safe_trials_fraction(
            *m.desired_min_safe_trials_fraction);
      }
    }
  }
  proto.set_max_trials(spec.max_trials);
  proto.set_max_parallel_trials(spec.max_parallel_trials);
  proto.set_max_failed_trials(spec.max_failed_trials);
  proto.set_enable_trial_early_stopping(spec.enable_early_stopping);
  if (!spec.early_stopping_rule.empty()) {
    proto.set_early_stopping_rule(spec.early_stopping_rule);
  }
  // The convex rule's block travels in its own message, which Vertex's
  // clients know; what that cannot carry, as any other rule's, in the Struct.
  const StoppingSettings& settings = spec.stopping_settings;
  if (!settings.empty() &&
      (settings.rule != kConvexStoppingRule ||
       !ConvexSettingsToProto(settings, *proto.mutable_convex_stopping()))) {
    proto.clear_convex_stopping();
    SettingsToProto(settings, *proto.mutable_early_stopping_settings());
  }
  if (spec.trial_lease_seconds) {
    proto.set_trial_lease_seconds(*spec.trial_lease_seconds);
  }
  if (spec.seeding_trials) proto.set_seeding_trials(*spec.seeding_trials);
  if (spec.measurement_selection == MeasurementSelection::kBest) {
    proto.set_measurement_selection_type(v1::StudySpec::BEST_MEASUREMENT);
  }
  if (!spec.resume_previous_job_id.empty()) {
    proto.set_resume_previous_job_id(spec.resume_previous_job_id);
  }
  switch (spec.algorithm) {
    case Algorithm::kUnspecified:
      proto.set_algorithm(v1::StudySpec::ALGORITHM_UNSPECIFIED);
      break;
    case Algorithm::kGridSearch:
      proto.set_algorithm(v1::StudySpec::GRID_SEARCH);
      break;
    case Algorithm::kRandomSearch:
      proto.set_algorithm(v1::StudySpec::RANDOM_SEARCH);
      break;
    case Algorithm::kQuasiRandomSearch:
      proto.set_algorithm(v1::StudySpec::QUASI_RANDOM_SEARCH);
      break;
    case Algorithm::kMultiFidelityGp:
      proto.set_algorithm(v1::StudySpec::MULTI_FIDELITY_GP);
      break;
  }
  if (spec.seed) proto.set_seed(*spec.seed);
  for (int root : spec.search_space.ChildIndices(-1)) {
    ParameterSpecToProto(spec.search_space, root, proto.add_params());
  }
  return proto;
}

v1::Study::State StudyStateToProto(StudyState state) {
  switch (state) {
    case StudyState::kActive:
      return v1::Study::ACTIVE;
    case StudyState::kCompleted:
      return v1::Study::COMPLETED;
    case StudyState::kFailed:
      return v1::Study::FAILED;
    case StudyState::kCancelled:
      return v1::Study::CANCELLED;
  }
  return v1::Study::STATE_UNSPECIFIED;
}

StudyState StudyStateFromProto(v1::Study::State state) {
  switch (state) {
    case v1::Study::COMPLETED:
      return StudyState::kCompleted;
    case v1::Study::FAILED:
      return StudyState::kFailed;
    case v1::Study::CANCELLED:
      return StudyState::kCancelled;
    default:
      return StudyState::kActive;
  }
}

v1::Study StudyToProto(const StudyRecord& study) {
  v1::Study proto;
  proto.set_name(study.name);
  *proto.mutable_spec() = StudySpecToProto(study.spec);
  proto.set_state(StudyStateToProto(study.state));
  proto.set_state_reason(study.reason);
  proto.set_seed(study.seed);
  *proto.mutable_create_time() = TimestampToProto(study.create_time);
  proto.set_resumed_trials(study.resumed_trials);
  return proto;
}

absl::StatusOr<Measurement> MeasurementFromProto(const v1::Measurement& proto,
                                                 std::string_view field) {
  Measurement m;
  m.step = proto.step();
  if (proto.has_time()) {
    // 1970-01-01 to 9999-12-31, as a Timestamp's documentation bounds it;
    // further out the microseconds hptune keeps would overflow.
    constexpr int64_t kMaxSeconds = 253402300799;
    const google::protobuf::Timestamp& t = proto.time();
    if (t.seconds() < 0 || t.seconds() > kMaxSeconds || t.nanos() < 0 ||
        t.nanos() >= 1000000000) {
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(field),
          ".time: must be between 1970-01-01 and 9999-12-31, got seconds=",
          t.seconds(), " nanos=", t.nanos()));
    }
    m.time = TimestampFromProto(t);
  }
  for (const auto& [name, value] : proto.metrics()) m.metrics[name] = value;
  absl::Status valid = ValidateMeasurement(m);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field), ": ", valid.message()));
  }
  return m;
}

v1::Measurement MeasurementToProto(const Measurement& m,
                                   std::optional<Timestamp> start) {
  v1::Measurement proto;
  proto.set_step(m.step);
  for (const auto& [name, value] : m.metrics) {
    (*proto.mutable_metrics())[name] = value;
  }
  *proto.mutable_time() = TimestampToProto(m.time);
  proto.set_attempt(m.attempt);
  if (start && m.time >= *start) {
    const int64_t micros = (m.time - *start).count();
    proto.mutable_elapsed_duration()->set_seconds(micros / 1000000);
    proto.mutable_elapsed_duration()->set_nanos(
        static_cast<int32_t>(micros % 1000000 * 1000));
  }
  return proto;
}

absl::StatusOr<ParameterAssignment> ParametersFromProto(
    const google::protobuf::Map<std::string, v1::ParameterValue>& proto,
    const SearchSpace& space, std::string_view field) {
  ParameterAssignment assignment;
  for (const auto& [name, value] : proto) {
    const std::string where =
        absl::StrCat(std::string(field), "[\"", name, "\"]");
    const ParameterSpec* spec = space.Find(name);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the study has no parameter \"", name, "\""));
    }
    switch (value.kind_case()) {
      case v1::ParameterValue::kDoubleValue: {
        const double v = value.double_value();
        if (spec->type == ParameterType::kInteger) {
          if (!std::isfinite(v) || v != std::floor(v) ||
              std::fabs(v) > 0x1p62) {
            return absl::InvalidArgumentError(absl::StrCat(
                where, ": INTEGER parameter needs an integer, got ", v));
          }
          assignment[name] = ParameterValue::Integer(static_cast<int64_t>(v));
        } else if (spec->type == ParameterType::kCategorical) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": CATEGORICAL parameter needs string_value, got ", v));
        } else {
          assignment[name] = ParameterValue::Double(v);
        }
        break;
      }
      case v1::ParameterValue::kIntValue: {
        const int64_t v = value.int_value();
        if (spec->type == ParameterType::kInteger) {
          assignment[name] = ParameterValue::Integer(v);
        } else if (spec->type == ParameterType::kCategorical) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": CATEGORICAL parameter needs string_value, got ", v));
        } else {
          assignment[name] = ParameterValue::Double(static_cast<double>(v));
        }
        break;
      }
      case v1::ParameterValue::kStringValue:
        if (spec->type != ParameterType::kCategorical) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": ", std::string(ToString(spec->type)),
              " parameter needs a number, got \"", value.string_value(), "\""));
        }
        assignment[name] = ParameterValue::Categorical(value.string_value());
        break;
      case v1::ParameterValue::KIND_NOT_SET:
        return absl::InvalidArgumentError(absl::StrCat(where, ": no value"));
    }
  }
  return assignment;
}

v1::Trial TrialToProto(std::string_view study, const Trial& trial,
                       bool with_measurements) {
  v1::Trial proto;
  proto.set_id(trial.number);
  proto.set_study(std::string(study));
  for (const auto& [name, value] : trial.parameters) {
    v1::ParameterValue& out = (*proto.mutable_parameters())[name];
    if (value.is_string()) {
      out.set_string_value(value.AsString());
    } else if (value.is_integer()) {
      out.set_int_value(value.AsInteger());
    } else {
      out.set_double_value(value.AsDouble());
    }
  }
  proto.set_state(TrialStateToProto(trial.state));
  if (with_measurements) {
    for (const Measurement& m : trial.measurements) {
      *proto.add_measurements() = MeasurementToProto(m, trial.start_time);
    }
  }
  if (trial.final_measurement) {
    *proto.mutable_final_measurement() =
        MeasurementToProto(*trial.final_measurement, trial.start_time);
  }
  proto.set_reason(trial.reason);
  proto.set_stopped_early(trial.stopped_early);
  proto.set_client_id(trial.client_id);
  proto.set_origin(trial.origin);
  proto.set_attempt(trial.attempt);
  *proto.mutable_create_time() = TimestampToProto(trial.create_time);
  if (trial.start_time) {
    *proto.mutable_start_time() = TimestampToProto(*trial.start_time);
  }
  if (trial.end_time) {
    *proto.mutable_end_time() = TimestampToProto(*trial.end_time);
  }
  return proto;
}

}  // namespace hptune::api
