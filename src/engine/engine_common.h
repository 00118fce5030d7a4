// Small helpers the TuningEngine's source files share (engine.cc,
// suggestions.cc, trial_results.cc). Internal to the engine; pure
// functions, thread-safe.
#ifndef HPTUNE_SRC_ENGINE_ENGINE_COMMON_H_
#define HPTUNE_SRC_ENGINE_ENGINE_COMMON_H_

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace hptune::engine {

inline std::string Quoted(std::string_view s) {
  return absl::StrCat("\"", std::string(s), "\"");
}

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_ENGINE_COMMON_H_
