#include "src/server/request_limits.h"

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"

namespace hptune::server {

absl::Status CheckLength(std::string_view field, std::string_view value,
                         size_t max) {
  if (value.size() <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(field), ": at most ", max, " characters, got ",
                   value.size()));
}

absl::Status CheckName(std::string_view field, std::string_view value) {
  // Checked before the character rules so that a huge value is not quoted
  // back in full.
  if (value.size() > kMaxNameLength)
    return CheckLength(field, value, kMaxNameLength);
  if (value.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field), ": required"));
  }
  return FieldErrorsToStatus(ValidateJobId(value, field));
}

absl::StatusOr<size_t> ParsePageToken(std::string_view token) {
  if (token.empty()) return 0;
  uint64_t offset = 0;
  if (token.size() > 20 || !absl::SimpleAtoi(std::string(token), &offset)) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_token: not a token this server returned, got \"",
                     std::string(token.substr(0, 64)), "\""));
  }
  return static_cast<size_t>(offset);
}

absl::StatusOr<size_t> CheckPageSize(int page_size) {
  if (page_size == 0) return kDefaultPageSize;
  if (page_size < 0 || page_size > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: must be 0 (default ", kDefaultPageSize,
                     ") to ", kMaxPageSize, ", got ", page_size));
  }
  return static_cast<size_t>(page_size);
}

}  // namespace hptune::server
