// Whether a finite search space has been covered, so that a study can
// complete before its budget. Internal to the engine (SuggestTrials and the
// completion check after a trial ends); pure functions, thread-safe.
#ifndef HPTUNE_SRC_ENGINE_SPACE_EXHAUSTION_H_
#define HPTUNE_SRC_ENGINE_SPACE_EXHAUSTION_H_

#include <cstdint>
#include <vector>

#include "hptune/core/search_space.h"

namespace hptune::engine {

// Whether `trials` trials could cover the space: it is finite and has at
// most that many points. Reads the spec alone.
bool MayBeExhausted(const SearchSpace& space, int64_t trials);

// Whether every point of a finite search space is among `tried` (designers
// never repeat a point, so nothing is left to suggest). Cheap unless the
// space is small enough to have been covered.
bool SpaceExhausted(const SearchSpace& space,
                    const std::vector<const ParameterAssignment*>& tried);

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_SPACE_EXHAUSTION_H_
