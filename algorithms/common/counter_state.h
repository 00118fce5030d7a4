// The saved state of a designer whose only state is one counter (the grid
// cursor, the random stream's draw count, the Halton index), as text:
// "<tag>:<key>=<decimal>", e.g. "grid:cursor=12". Readable in the store and
// in the event log, and tagged so a state saved by another designer is
// refused instead of misread. Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_COMMON_COUNTER_STATE_H_
#define HPTUNE_ALGORITHMS_COMMON_COUNTER_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hptune::algorithms {

std::string FormatCounterState(std::string_view tag, std::string_view key,
                               uint64_t value);

// The counter in `state`; 0 for "" (a designer that never saved). Otherwise
// InvalidArgument naming the expected form.
absl::StatusOr<uint64_t> ParseCounterState(std::string_view tag,
                                           std::string_view key,
                                           std::string_view state);

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_COMMON_COUNTER_STATE_H_
