// The rules on a job's display name and base output directory (job_extras.h).
#include "src/core/config/job_extras.h"

#include <cstddef>
#include <string>

#include "hptune/core/bucket_paths.h"
#include "src/core/config/text.h"

namespace hptune::config_internal {

std::vector<FieldError> ValidateDisplayName(std::string_view name,
                                            std::string_view field) {
  // Characters, not bytes: count the bytes that start a UTF-8 sequence.
  size_t characters = 0;
  for (char c : name) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++characters;
  }
  if (name.empty() || characters > kMaxDisplayNameCharacters) {
    return {{std::string(field),
             "must be 1 to 128 characters, got " + std::to_string(characters)}};
  }
  return {};
}

std::vector<FieldError> ValidateOutputDirectory(std::string_view directory,
                                                std::string_view field) {
  if (directory.empty() || directory.size() > kMaxPathBytes) {
    return {{std::string(field), "must be a path of 1 to 4095 bytes, got " +
                                     std::to_string(directory.size()) +
                                     " bytes"}};
  }
  if (IsGcsUri(directory)) return ValidateGcsUri(directory, field);
  if (directory.find("://") != std::string_view::npos ||
      directory.find('\0') != std::string_view::npos) {
    return {{std::string(field),
             "must be a local directory or a gs:// URI (under the runner's "
             "--gcs-root), got " +
                 Quote(directory)}};
  }
  return {};
}

}  // namespace hptune::config_internal

namespace hptune {

std::string IgnoredFieldsNote(const std::vector<std::string>& fields) {
  if (fields.empty()) return "";
  std::string note = "note: accepted and ignored here: ";
  for (size_t i = 0; i < fields.size(); ++i) {
    note += (i == 0 ? "" : ", ") + fields[i];
  }
  return note;
}

}  // namespace hptune
