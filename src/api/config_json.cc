#include "src/api/config_json.h"

#include <google/protobuf/util/json_util.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace hptune::api {

using google::protobuf::util::JsonPrintOptions;

absl::StatusOr<nlohmann::json> ToConfigJson(
    const google::protobuf::Message& message) {
  std::string text;
  JsonPrintOptions options;
  options.preserve_proto_field_names = false;
  auto status =
      google::protobuf::util::MessageToJsonString(message, &text, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat(
        "cannot write JSON: ",
        std::string(status.message().data(), status.message().size())));
  }
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) {
    return absl::InternalError("protobuf wrote JSON that does not parse");
  }
  return json;
}

void SeedToNumber(nlohmann::json& hyperparameters) {
  if (!hyperparameters.is_object()) return;
  auto seed = hyperparameters.find("seed");
  if (seed == hyperparameters.end() || !seed->is_string()) return;
  const std::string text = seed->get<std::string>();
  // protobuf wrote it from a uint64, so it is all digits.
  *seed = nlohmann::json::parse(text, nullptr, false);
}

}  // namespace hptune::api
