#include "src/store/record_codec.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/time.h"
#include "nlohmann/json.hpp"

namespace hptune::store::internal {
namespace {

using Json = nlohmann::json;

// Thrown inside this file only, for problems nlohmann does not see (an
// unknown enum name, a NaN); turned into Status with nlohmann's own errors.
struct CodecError {
  std::string message;
};

Json FiniteDouble(double value, const std::string& what) {
  if (!std::isfinite(value)) {
    throw CodecError{absl::StrCat(what, " must be finite, got ", value)};
  }
  return Json(value);
}

std::string Dump(const Json& json) {
  // strict: invalid UTF-8 in a name is an error, not silently replaced.
  return json.dump(-1, ' ', false, Json::error_handler_t::strict);
}

// Runs `encode`, turning any exception into InvalidArgument naming `what`.
template <typename F>
absl::StatusOr<std::string> Encode(const std::string& what, F&& encode) {
  try {
    return Dump(encode());
  } catch (const CodecError& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot store ", what, ": ", e.message));
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot store ", what, ": ", e.what()));
  }
}

// Parses `text` and runs `decode` on it, turning any exception into DataLoss:
// a stored record that does not decode was damaged or written by something
// else.
template <typename F>
auto Decode(const std::string& what, std::string_view text, F&& decode)
    -> absl::StatusOr<decltype(decode(std::declval<const Json&>()))> {
  try {
    return decode(Json::parse(text));
  } catch (const CodecError& e) {
    return absl::DataLossError(
        absl::StrCat("cannot read stored ", what, ": ", e.message));
  } catch (const Json::exception& e) {
    return absl::DataLossError(
        absl::StrCat("cannot read stored ", what, ": ", e.what()));
  }
}

Json MetricsToJson(const MetricMap& metrics) {
  Json json = Json::object();
  for (const auto& [name, value] : metrics) {
    json[name] = FiniteDouble(value, absl::StrCat("metric \"", name, "\""));
  }
  return json;
}

MetricMap MetricsFromJson(const Json& json) {
  if (!json.is_object()) throw CodecError{"metrics: not an object"};
  MetricMap metrics;
  for (const auto& [name, value] : json.items()) {
    if (!value.is_number()) {
      throw CodecError{absl::StrCat("metric \"", name, "\": not a number")};
    }
    metrics[name] = value.get<double>();
  }
  return metrics;
}

}  // namespace

absl::StatusOr<std::string> EncodeParameters(
    const ParameterAssignment& params) {
  return Encode("parameters", [&] {
    Json json = Json::object();
    for (const auto& [name, value] : params) {
      if (value.is_integer()) {
        json[name] = value.AsInteger();
      } else if (value.is_string()) {
        json[name] = value.AsString();
      } else {
        json[name] = FiniteDouble(value.AsDouble(),
                                  absl::StrCat("parameter \"", name, "\""));
      }
    }
    return json;
  });
}

absl::StatusOr<ParameterAssignment> DecodeParameters(std::string_view text) {
  return Decode("parameters", text, [](const Json& json) {
    if (!json.is_object()) throw CodecError{"not an object"};
    ParameterAssignment params;
    for (const auto& [name, value] : json.items()) {
      if (value.is_number_float()) {
        params[name] = ParameterValue::Double(value.get<double>());
      } else if (value.is_number_unsigned() &&
                 value.get<uint64_t>() >
                     static_cast<uint64_t>(
                         std::numeric_limits<int64_t>::max())) {
        throw CodecError{
            absl::StrCat("parameter \"", name, "\": integer out of range")};
      } else if (value.is_number_integer()) {
        params[name] = ParameterValue::Integer(value.get<int64_t>());
      } else if (value.is_string()) {
        params[name] = ParameterValue::Categorical(value.get<std::string>());
      } else {
        throw CodecError{
            absl::StrCat("parameter \"", name, "\": not a number or string")};
      }
    }
    return params;
  });
}

absl::StatusOr<std::string> EncodeMetrics(const MetricMap& metrics) {
  return Encode("metrics", [&] { return MetricsToJson(metrics); });
}

absl::StatusOr<MetricMap> DecodeMetrics(std::string_view text) {
  return Decode("metrics", text, &MetricsFromJson);
}

absl::StatusOr<std::string> EncodeMeasurement(const Measurement& m) {
  return Encode("measurement", [&] {
    Json j{{"step", m.step},
           {"time", ToUnixMicros(m.time)},
           {"metrics", MetricsToJson(m.metrics)}};
    if (m.attempt != 0) j["attempt"] = m.attempt;
    return j;
  });
}

absl::StatusOr<Measurement> DecodeMeasurement(std::string_view text) {
  return Decode("measurement", text, [](const Json& j) {
    Measurement m;
    m.step = j.at("step").get<int64_t>();
    m.time = FromUnixMicros(j.at("time").get<int64_t>());
    m.metrics = MetricsFromJson(j.at("metrics"));
    m.attempt = j.value("attempt", 0);
    return m;
  });
}

absl::StatusOr<std::string> EncodeSlurmJobOptions(
    const SlurmJobOptions& slurm) {
  return Encode("slurm options", [&] {
    Json j = Json::object();
    if (!slurm.partition.empty()) j["partition"] = slurm.partition;
    if (!slurm.account.empty()) j["account"] = slurm.account;
    if (!slurm.time.empty()) j["time"] = slurm.time;
    if (!slurm.options.empty()) j["options"] = slurm.options;
    return j;
  });
}

absl::StatusOr<SlurmJobOptions> DecodeSlurmJobOptions(std::string_view text) {
  return Decode("slurm options", text, [](const Json& j) {
    SlurmJobOptions slurm;
    slurm.partition = j.value("partition", "");
    slurm.account = j.value("account", "");
    slurm.time = j.value("time", "");
    slurm.options = j.value("options", std::vector<std::string>{});
    return slurm;
  });
}

absl::StatusOr<std::string> EncodeJobLabels(const JobLabels& labels) {
  return Encode("job labels", [&] { return Json(labels); });
}

absl::StatusOr<JobLabels> DecodeJobLabels(std::string_view text) {
  return Decode("job labels", text,
                [](const Json& j) { return j.get<JobLabels>(); });
}

}  // namespace hptune::store::internal
