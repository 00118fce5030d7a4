#include "algorithms/gp/matern_kernel.h"

#include <cstdio>
#include <cstdlib>

namespace hptune::algorithms::gp {

MaternKernel::MaternKernel(std::vector<FeatureKind> kinds,
                           std::span<const double> log_lengthscales,
                           double signal_variance)
    : kinds_(std::move(kinds)), signal_variance_(signal_variance) {
  if (kinds_.size() != log_lengthscales.size()) {
    std::fprintf(stderr,
                 "hptune: broken invariant: MaternKernel with %zu kinds and "
                 "%zu lengthscales\n",
                 kinds_.size(), log_lengthscales.size());
    std::abort();
  }
  for (size_t i = 0; i < kinds_.size(); ++i) {
    (kinds_[i] == FeatureKind::kCategorical ? categorical_ : continuous_)
        .push_back(static_cast<int>(i));
    inv_l2_.push_back(std::exp(-2 * log_lengthscales[i]));
  }
}

}  // namespace hptune::algorithms::gp
