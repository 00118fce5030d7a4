// Designer: the interface of every search algorithm (after OSS Vizier).
//
// The engine gives a designer the study's history with Update(), then asks it
// for new points with Suggest(). Implementations live under algorithms/ and do
// no I/O, read no clock and take randomness only from their seed, so they are
// deterministic for a seed and a history. Not thread-safe: the engine uses one
// designer from one thread at a time.
#ifndef HPTUNE_ALGORITHMS_DESIGNER_H_
#define HPTUNE_ALGORITHMS_DESIGNER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/search_space.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

struct Suggestion {
  ParameterAssignment parameters;
  // How it was made ("grid[12]", "halton[3]", "random"); stored on the trial.
  std::string origin;
};

class Designer {
 public:
  virtual ~Designer() = default;

  // Replaces the designer's view of the study: `completed` are trials in a
  // terminal state, `active` those still pending (REQUESTED, ACTIVE,
  // STOPPING). Pending trials matter: suggestions must not repeat them.
  [[nodiscard]] virtual absl::Status Update(
      const std::vector<Trial>& completed,
      const std::vector<Trial>& active) = 0;

  // Up to `count` new points, each feasible in the search space. Fewer (even
  // none) means the space is exhausted. Advances the designer's own state
  // (grid cursor, sequence index); the engine persists SaveState() in the same
  // transaction as the trials it creates from the suggestions, so a restarted
  // server continues exactly where it stopped.
  virtual absl::StatusOr<std::vector<Suggestion>> Suggest(int count) = 0;

  // State beyond the trial history, as an opaque string ("" when none).
  virtual std::string SaveState() const { return {}; }
  // Restores what SaveState() returned; InvalidArgument on a foreign string.
  [[nodiscard]] virtual absl::Status RestoreState(std::string_view state) {
    return state.empty() ? absl::OkStatus()
                         : absl::InvalidArgumentError(
                               "this designer keeps no state, got some");
  }
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_DESIGNER_H_
