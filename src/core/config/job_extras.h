// The rules on what a Vertex spec says about a job beside its pools: its
// display name and its base output directory.
//
// Private to config parsing: the AI Platform reader (training_input.cc,
// hptune's `displayName` and `baseOutputDirectory`) and the Vertex reader
// (vertex.cc, `displayName` and `baseOutputDirectory.outputUriPrefix`) call
// them with their own field paths. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_CORE_CONFIG_JOB_EXTRAS_H_
#define HPTUNE_SRC_CORE_CONFIG_JOB_EXTRAS_H_

#include <string_view>
#include <vector>

#include "hptune/core/config.h"

namespace hptune::config_internal {

// Vertex's limit: at most 128 characters (UTF-8).
inline constexpr size_t kMaxDisplayNameCharacters = 128;

std::vector<FieldError> ValidateDisplayName(std::string_view name,
                                            std::string_view field);
// A local directory or a gs:// URI with sound names (bucket_paths.h): 1
// to 4095 bytes, no other "://".
std::vector<FieldError> ValidateOutputDirectory(std::string_view directory,
                                                std::string_view field);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_JOB_EXTRAS_H_
