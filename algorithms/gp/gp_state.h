// The GP designer's saved state: what it carries from one SuggestTrials call
// to the next beyond the trial history.
//
// The engine builds a fresh designer for each call and restores this, so it
// holds everything that makes the next call cheap and deterministic: the
// Halton index of the seeding stream, the number of Suggest calls (which
// seeds the acquisition optimiser), the number of data rows at the last
// full hyperparameter fit (the refit schedule) and the fitted
// hyperparameters (the warm start, and the model itself between refits).
// Text, one line, versioned:
//   gp1;halton=<i>;calls=<c>;fit_rows=<n>;theta=<x1>,<x2>,...
// with theta's entries as C99 hexadecimal floats (exact round trip) and
// empty when there was no fit yet. A study of several metrics adds the
// other models' hyperparameters as ";theta1=...;theta2=..." in model
// column order (gp_history.h). A study started when quasi-random search
// was the default holds "halton:index=<i>": it is read as a GP state at
// that Halton index, so such studies continue under the GP designer.
// A hyperparameter fit run off the suggestion path (gp_designer.h's
// deferred refits) comes back as a GpFit, one line too:
//   gpfit1;rows=<n>;theta=<x1>,...[;theta1=...]
// the number of observations it was fitted on and each model column's
// hyperparameters (empty for a column it did not fit).
// Pure functions; thread-safe.
#ifndef HPTUNE_ALGORITHMS_GP_GP_STATE_H_
#define HPTUNE_ALGORITHMS_GP_GP_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hptune::algorithms::gp {

struct GpState {
  uint64_t halton_index = 0;
  uint64_t suggest_calls = 0;
  uint64_t fit_rows = 0;
  std::vector<double> theta;  // Empty: not fitted yet.
  // The models of model columns 1, 2, ... (several metrics only).
  std::vector<std::vector<double>> other_thetas;

  bool operator==(const GpState&) const = default;
};

std::string FormatGpState(const GpState& state);

// "" gives the initial state. InvalidArgument naming the state and the
// expected form for anything else that is not a state of this format (or
// the legacy quasi-random one), or whose theta has more than `packed_size`
// entries. A theta of fewer entries was fitted before a parameter joined
// the space (define-by-run): it reads as empty (not fitted yet), here and
// in ParseGpFit.
absl::StatusOr<GpState> ParseGpState(std::string_view text, int packed_size);

struct GpFit {
  uint64_t rows = 0;
  // Per model column (gp_history.h); empty: that column was not fitted.
  std::vector<std::vector<double>> thetas;

  bool operator==(const GpFit&) const = default;
};

std::string FormatGpFit(const GpFit& fit);
// InvalidArgument naming the text and the expected form for anything that
// is not a GpFit whose thetas have at most `packed_size` entries (fewer:
// read as empty, as above).
absl::StatusOr<GpFit> ParseGpFit(std::string_view text, int packed_size);

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_GP_STATE_H_
