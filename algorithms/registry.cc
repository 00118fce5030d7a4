#include "hptune/algorithms/registry.h"

#include "absl/strings/str_cat.h"
#include "algorithms/gp/gp_designer.h"
#include "algorithms/grid/grid_designer.h"
#include "algorithms/sampling/sampling_designer.h"
#include "hptune/core/status.h"

namespace hptune::algorithms {

absl::StatusOr<std::unique_ptr<Designer>> CreateDesigner(const StudySpec& spec,
                                                         uint64_t seed) {
  switch (spec.algorithm) {
    case Algorithm::kGridSearch: {
      ASSIGN_OR_RETURN(auto designer, GridDesigner::Create(spec.search_space));
      return std::unique_ptr<Designer>(std::move(designer));
    }
    case Algorithm::kRandomSearch: {
      ASSIGN_OR_RETURN(auto designer,
                       CreateRandomDesigner(spec.search_space, seed));
      return std::unique_ptr<Designer>(std::move(designer));
    }
    // ALGORITHM_UNSPECIFIED is Bayesian optimisation, as in AI Platform.
    case Algorithm::kUnspecified: {
      ASSIGN_OR_RETURN(auto designer, gp::GpDesigner::Create(spec, seed));
      return std::unique_ptr<Designer>(std::move(designer));
    }
    case Algorithm::kQuasiRandomSearch: {
      ASSIGN_OR_RETURN(auto designer,
                       CreateQuasiRandomDesigner(spec.search_space, seed));
      return std::unique_ptr<Designer>(std::move(designer));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown algorithm ", static_cast<int>(spec.algorithm)));
}

}  // namespace hptune::algorithms
