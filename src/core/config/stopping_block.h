// Reading a study's early-stopping settings block (`earlyStoppingSettings`,
// or the convex rule's `convexStopping`) into
// EarlyStoppingSettings::stopping_settings.
//
// Private to config parsing (hyperparameters.cc). Core knows no rule, so
// the block is read as written, any names with scalar values; the rule's
// factory checks them (hptune/algorithms/stopping_registry.h). Pure
// functions; thread-safe.
#ifndef HPTUNE_SRC_CORE_CONFIG_STOPPING_BLOCK_H_
#define HPTUNE_SRC_CORE_CONFIG_STOPPING_BLOCK_H_

#include <string_view>

#include "hptune/core/study.h"
#include "src/core/config/reader.h"

namespace hptune::config_internal {

// The block `key` of `reader`'s mapping, when there, into
// spec.stopping_settings, written for `rule` (empty: the study's rule).
// Reports a value that is not a scalar, a duplicate name, and a second
// block beside one read before.
void ReadStoppingSettings(MapReader& reader, std::string_view key,
                          std::string_view rule, StudySpec& spec);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_STOPPING_BLOCK_H_
