#include "algorithms/sampling/sampling_designer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "algorithms/common/counter_state.h"
#include "algorithms/common/unique_sampler.h"
#include "algorithms/encoding/unit_cube.h"

namespace hptune::algorithms {

absl::StatusOr<std::unique_ptr<SamplingDesigner>> SamplingDesigner::Create(
    const SearchSpace& space, std::unique_ptr<PointSource> source) {
  HPTUNE_RETURN_IF_ERROR(ValidateForEncoding(space));
  return std::unique_ptr<SamplingDesigner>(
      new SamplingDesigner(space, std::move(source), EnumerableGrid(space)));
}

absl::Status SamplingDesigner::Update(const std::vector<Trial>& completed,
                                      const std::vector<Trial>& active) {
  used_ = AssignmentSet::FromTrials(completed, active);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Suggestion>> SamplingDesigner::Suggest(int count) {
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(source_->designer_name()),
                     ": count must be >= 0, got ", count));
  }
  return SampleUnique(space_, grid_, used_, count,
                      [&] { return source_->Next(); });
}

std::string SamplingDesigner::SaveState() const {
  return FormatCounterState(source_->state_tag(), source_->state_key(),
                            source_->position());
}

absl::Status SamplingDesigner::RestoreState(std::string_view state) {
  HPTUNE_ASSIGN_OR_RETURN(
      uint64_t position,
      ParseCounterState(source_->state_tag(), source_->state_key(), state));
  source_->set_position(position);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SamplingDesigner>> CreateRandomDesigner(
    const SearchSpace& space, uint64_t seed) {
  const auto dimension = static_cast<int>(space.parameters().size());
  return SamplingDesigner::Create(space, NewRandomPoints(dimension, seed));
}

absl::StatusOr<std::unique_ptr<SamplingDesigner>> CreateQuasiRandomDesigner(
    const SearchSpace& space, uint64_t seed) {
  HPTUNE_RETURN_IF_ERROR(ValidateForEncoding(space));
  const auto dimension = static_cast<int>(space.parameters().size());
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<PointSource> source,
                          NewHaltonPoints(dimension, seed));
  return SamplingDesigner::Create(space, std::move(source));
}

}  // namespace hptune::algorithms
