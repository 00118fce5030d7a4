// A message as the JSON that config parsing reads, for the conversions of
// a StudySpec (study_conversion.cc) and a TrainingInput (job_conversion.cc)
// that go through core's config parser. Internal to src/api; pure
// functions, thread-safe.
#ifndef HPTUNE_SRC_API_CONFIG_JSON_H_
#define HPTUNE_SRC_API_CONFIG_JSON_H_

#include <google/protobuf/message.h>

#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace hptune::api {

inline constexpr std::string_view kTrainingInput = "trainingInput";

// `message` in protobuf's JSON form (lowerCamelCase names, unset fields
// left out), as config parsing reads it. protobuf writes 64-bit integers as
// strings; hptune's `seed` must be a JSON number, so it is turned back into
// one (the other 64-bit fields are replica counts, which the parser takes
// as strings too, as AI Platform's own JSON has them).
absl::StatusOr<nlohmann::json> ToConfigJson(
    const google::protobuf::Message& message);

// A `seed` that protobuf wrote as a string, back to a JSON number.
void SeedToNumber(nlohmann::json& hyperparameters);

}  // namespace hptune::api

#endif  // HPTUNE_SRC_API_CONFIG_JSON_H_
