#include "algorithms/gp/multi_fidelity_designer.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "algorithms/gp/curve_model.h"
#include "hptune/core/status.h"

namespace hptune::algorithms::gp {
namespace {

constexpr char kStateTag[] = "mf1";

}  // namespace

absl::StatusOr<std::unique_ptr<MultiFidelityDesigner>>
MultiFidelityDesigner::Create(const Problem& problem,
                              const DesignerOptions& options, uint64_t seed) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<GpDesigner> gp,
                          GpDesigner::Create(problem, options, seed));
  HPTUNE_ASSIGN_OR_RETURN(int packed_size, CurveModelPackedSize(problem));
  return std::unique_ptr<MultiFidelityDesigner>(
      new MultiFidelityDesigner(problem, seed, packed_size, std::move(gp)));
}

absl::Status MultiFidelityDesigner::Update(const std::vector<Trial>& completed,
                                           const std::vector<Trial>& active) {
  absl::StatusOr<std::vector<Trial>> read =
      ForecastStoppedTrials(problem_, completed, seed_, curve_fit_);
  read_ = read.ok() ? *std::move(read) : completed;
  return gp_->Update(read_, active);
}

std::string MultiFidelityDesigner::SaveState() const {
  return absl::StrCat(kStateTag, " ", FormatGpState(curve_fit_), " ",
                      gp_->SaveState());
}

absl::Status MultiFidelityDesigner::RestoreState(std::string_view state) {
  if (state.empty()) return absl::OkStatus();
  const std::string text(state);
  const std::vector<std::string> parts =
      absl::StrSplit(text, absl::MaxSplits(' ', 2));
  if (parts.size() != 3 || parts[0] != kStateTag) {
    return absl::InvalidArgumentError(
        absl::StrCat("MULTI_FIDELITY_GP: expected a state \"", kStateTag,
                     " <curve fit> <GP state>\", got \"", text, "\""));
  }
  HPTUNE_ASSIGN_OR_RETURN(curve_fit_,
                          ParseGpState(parts[1], curve_packed_size_));
  return gp_->RestoreState(parts[2]);
}

}  // namespace hptune::algorithms::gp
