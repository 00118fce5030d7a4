#include "algorithms/gp/matern_kernel.h"

#include "absl/strings/str_cat.h"
#include "hptune/core/check.h"

namespace hptune::algorithms::gp {

MaternKernel::MaternKernel(std::vector<FeatureKind> kinds,
                           std::span<const double> log_lengthscales,
                           double signal_variance)
    : kinds_(std::move(kinds)), signal_variance_(signal_variance) {
  HPTUNE_CHECK(kinds_.size() == log_lengthscales.size(),
               absl::StrCat("MaternKernel with ", kinds_.size(), " kinds and ",
                            log_lengthscales.size(), " lengthscales"));
  for (size_t i = 0; i < kinds_.size(); ++i) {
    (kinds_[i] == FeatureKind::kCategorical ? categorical_ : continuous_)
        .push_back(static_cast<int>(i));
    inv_l2_.push_back(std::exp(-2 * log_lengthscales[i]));
  }
}

}  // namespace hptune::algorithms::gp
