// Designer: the interface of every search algorithm (after OSS Vizier).
//
// The engine gives a designer the study's history with Update(), then asks it
// for new points with Suggest(). Implementations live under algorithms/ and do
// no I/O, read no clock and take randomness only from their seed, so they are
// deterministic for a seed and a history. Not thread-safe: the engine uses one
// designer from one thread at a time.
//
// Deferred work (optional): a designer asked to DeferWork() may leave out of
// Suggest() work that only improves later suggestions (the GP's
// hyperparameter refit) and hand it over as a DeferredWork, a self-contained
// function the caller runs on a thread of its own; the caller gives what it
// returned to a later designer of the same study (AcceptDeferredResult)
// before Update(). Suggestions then depend on when that work finished. A
// designer not asked to defer does everything inline and stays
// deterministic.
#ifndef HPTUNE_ALGORITHMS_DESIGNER_H_
#define HPTUNE_ALGORITHMS_DESIGNER_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/search_space.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

// What a designer is told besides its Problem: the settings designers read
// (DesignerSettings::seeding_trials) and the number of trials the study
// will hold, which the GP's seeding rule reads (docs/designers.md,
// "Seeding").
struct DesignerOptions {
  std::optional<int> seeding_trials;
  // maxTrials, plus the trials a study resumed from an earlier job
  // (StudyRecord::TrialBudget()).
  int trial_budget = 1;
};

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

  // How many of the latest SUCCEEDED trials not stopped early Update()
  // wants in `completed` with their intermediate measurements of the
  // study's metric (their learning curves). The other trials come as
  // summaries, without them: curves cost more than most designers would
  // use. Default: none.
  virtual int CurvesWanted() const { return 0; }

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

  // Deferred work (above). Owns copies of everything it reads, so it may
  // outlive the designer and run on any thread; returns its result as an
  // opaque string, or "" when `cancelled` became true first.
  using DeferredWork =
      std::function<std::string(const std::atomic<bool>& cancelled)>;
  // From now on, leave deferrable work to TakeDeferredWork(). Default: a
  // designer with none ignores this.
  virtual void DeferWork() {}
  // The work the last Suggest() deferred, once; nullopt when none.
  virtual std::optional<DeferredWork> TakeDeferredWork() {
    return std::nullopt;
  }
  // A result of deferred work of this study, newer or older than what the
  // restored state holds (the designer keeps the newer). InvalidArgument on
  // a foreign string.
  [[nodiscard]] virtual absl::Status AcceptDeferredResult(
      std::string_view result) {
    return result.empty() ? absl::OkStatus()
                          : absl::InvalidArgumentError(
                                "this designer defers no work, got a result");
  }
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_DESIGNER_H_
