// Maps a study's algorithm to a designer. Used by the engine (and tests) as
// the single place where concrete designers are chosen. Thread-safe.
#ifndef HPTUNE_ALGORITHMS_REGISTRY_H_
#define HPTUNE_ALGORITHMS_REGISTRY_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/study.h"

namespace hptune::algorithms {

// A fresh designer for `spec`, seeded with `seed`. InvalidArgument when the
// algorithm cannot handle the space (e.g. GRID_SEARCH with a DOUBLE).
absl::StatusOr<std::unique_ptr<Designer>> CreateDesigner(const StudySpec& spec,
                                                         uint64_t seed);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_REGISTRY_H_
