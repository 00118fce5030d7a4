#include "src/cli/client/proto_convert.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "hptune/core/status.h"
#include "nlohmann/json.hpp"
#include "src/api/conversion.h"

namespace hptune::cli::client {
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
  out.create_time = api::OptionalTimestampFromProto(study.create_time())
                        .value_or(Timestamp{});
  out.resumed_trials = study.resumed_trials();
  return out;
}

}  // namespace hptune::cli::client
