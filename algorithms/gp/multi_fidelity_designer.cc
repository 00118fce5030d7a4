#include "algorithms/gp/multi_fidelity_designer.h"

#include <atomic>
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
constexpr char kNone[] = "-";

// "mf1 <first> <second>" split in two; InvalidArgument naming `what` and
// its form otherwise.
absl::StatusOr<std::pair<std::string, std::string>> SplitTagged(
    std::string_view text, std::string_view what, std::string_view form) {
  const std::vector<std::string> parts =
      absl::StrSplit(std::string(text), absl::MaxSplits(' ', 2));
  if (parts.size() != 3 || parts[0] != kStateTag) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MULTI_FIDELITY_GP: expected ", std::string(what), " \"", kStateTag,
        " ", std::string(form), "\", got \"", std::string(text), "\""));
  }
  return std::make_pair(parts[1], parts[2]);
}

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
  curve_refit_.reset();
  absl::StatusOr<std::vector<Trial>> read = ForecastStoppedTrials(
      problem_, completed, seed_, curve_fit_, defer_ ? &curve_refit_ : nullptr);
  read_ = read.ok() ? *std::move(read) : completed;
  return gp_->Update(read_, active);
}

std::string MultiFidelityDesigner::SaveState() const {
  return absl::StrCat(kStateTag, " ", FormatGpState(curve_fit_), " ",
                      gp_->SaveState());
}

absl::Status MultiFidelityDesigner::RestoreState(std::string_view state) {
  if (state.empty()) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(
      auto parts, SplitTagged(state, "a state", "<curve fit> <GP state>"));
  HPTUNE_ASSIGN_OR_RETURN(curve_fit_,
                          ParseGpState(parts.first, curve_packed_size_));
  return gp_->RestoreState(parts.second);
}

std::optional<Designer::DeferredWork>
MultiFidelityDesigner::TakeDeferredWork() {
  std::optional<DeferredWork> gp_work = gp_->TakeDeferredWork();
  if (!gp_work && !curve_refit_) return std::nullopt;
  DeferredWork work = [gp_work = std::move(gp_work),
                       refit = std::move(curve_refit_)](
                          const std::atomic<bool>& cancelled) -> std::string {
    std::string curve = kNone;
    if (refit) {
      absl::StatusOr<std::vector<double>> theta =
          RunFitJob(refit->job, &cancelled);
      if (absl::IsCancelled(theta.status())) return "";
      // A failed fit keeps the saved hyperparameters.
      if (theta.ok()) {
        curve = FormatGpFit({.rows = refit->rows, .thetas = {*theta}});
      }
    }
    std::string gp = kNone;
    if (gp_work) {
      gp = (*gp_work)(cancelled);
      if (gp.empty()) return "";  // Cancelled.
    }
    return absl::StrCat(kStateTag, " ", curve, " ", gp);
  };
  curve_refit_.reset();
  return work;
}

absl::Status MultiFidelityDesigner::AcceptDeferredResult(
    std::string_view result) {
  if (result.empty()) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(auto parts, SplitTagged(result, "a deferred result",
                                                  "<curve fit|-> <GP fit|->"));
  if (parts.first != kNone) {
    HPTUNE_ASSIGN_OR_RETURN(GpFit fit,
                            ParseGpFit(parts.first, curve_packed_size_));
    // Older than the restored state's fit, or a failed one: kept as is.
    if (fit.rows > curve_fit_.fit_rows && !fit.thetas.empty() &&
        !fit.thetas[0].empty()) {
      curve_fit_.theta = std::move(fit.thetas[0]);
      curve_fit_.fit_rows = fit.rows;
    }
  }
  if (parts.second == kNone) return absl::OkStatus();
  return gp_->AcceptDeferredResult(parts.second);
}

}  // namespace hptune::algorithms::gp
