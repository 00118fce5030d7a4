// MultiFidelityDesigner: hptune's multi-fidelity designer
// (MULTI_FIDELITY_GP): the GP designer (gp_designer.h) reading each trial
// that its stopping rule stopped at the final value a model of the study's
// learning curves forecasts for it (curve_model.h), not at its last value.
//
// With no trial stopped early it is the GP, suggestion for suggestion: the
// partial curves are its only extra input. Which trials train on is the
// stopping rule's choice; with `asha-resume` a paused trial resumes from
// its checkpoint when promoted, and its continuation's longer curve
// replaces the forecast. A study of several metrics is read as the GP reads
// it.
//
// Created by the designer registry under MULTI_FIDELITY_GP. Not
// thread-safe, as every designer.
#ifndef HPTUNE_ALGORITHMS_GP_MULTI_FIDELITY_DESIGNER_H_
#define HPTUNE_ALGORITHMS_GP_MULTI_FIDELITY_DESIGNER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "algorithms/gp/curve_model.h"
#include "algorithms/gp/gp_designer.h"
#include "algorithms/gp/gp_state.h"
#include "hptune/algorithms/designer.h"
#include "hptune/core/study.h"

namespace hptune::algorithms::gp {

class MultiFidelityDesigner : public Designer {
 public:
  // As GpDesigner::Create.
  static absl::StatusOr<std::unique_ptr<MultiFidelityDesigner>> Create(
      const Problem& problem, const DesignerOptions& options, uint64_t seed);

  // Forecasts the stopped trials' finals, then updates the GP. A curve
  // model that cannot be fitted leaves them as the GP reads them.
  [[nodiscard]] absl::Status Update(const std::vector<Trial>& completed,
                                    const std::vector<Trial>& active) override;
  // The curves of the trials that ran to their end show the curve model
  // how far values fall from where the rule stopped the others.
  int CurvesWanted() const override { return kCurveModelTrials; }
  absl::StatusOr<std::vector<Suggestion>> Suggest(int count) override {
    return gp_->Suggest(count);
  }
  // "mf1 <curve model's fit> <GP's state>", both as gp_state.h formats
  // them (the fit as a GpState of fit_rows and theta). RestoreState("")
  // is the initial state.
  std::string SaveState() const override;
  // InvalidArgument naming the form for a string of another form.
  [[nodiscard]] absl::Status RestoreState(std::string_view state) override;
  // Deferred work (designer.h): the GP's due refits and the curve model's,
  // as one piece of work whose result is "mf1 <curve model's fit> <GP's
  // fit>", each as gp_state.h formats a GpFit, "-" for none.
  void DeferWork() override {
    defer_ = true;
    gp_->DeferWork();
  }
  std::optional<DeferredWork> TakeDeferredWork() override;
  // InvalidArgument naming the form for a string of another form.
  [[nodiscard]] absl::Status AcceptDeferredResult(
      std::string_view result) override;

  // The trials the GP read at the last Update, forecasts in place.
  const std::vector<Trial>& read_trials() const { return read_; }

 private:
  MultiFidelityDesigner(Problem problem, uint64_t seed, int curve_packed_size,
                        std::unique_ptr<GpDesigner> gp)
      : problem_(std::move(problem)),
        seed_(seed),
        curve_packed_size_(curve_packed_size),
        gp_(std::move(gp)) {}

  Problem problem_;
  uint64_t seed_;
  int curve_packed_size_;
  std::unique_ptr<GpDesigner> gp_;
  GpState curve_fit_;
  bool defer_ = false;
  std::optional<CurveRefit> curve_refit_;  // Due at the last Update.
  std::vector<Trial> read_;
};

}  // namespace hptune::algorithms::gp

#endif  // HPTUNE_ALGORITHMS_GP_MULTI_FIDELITY_DESIGNER_H_
