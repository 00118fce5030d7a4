#include "algorithms/sampling/point_source.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "algorithms/common/splitmix64.h"
#include "algorithms/quasi_random/halton.h"

namespace hptune::algorithms {
namespace {

class RandomPoints final : public PointSource {
 public:
  RandomPoints(int dimension, uint64_t seed)
      : dimension_(dimension), seed_(seed) {}

  UnitPoint Next() override {
    // Output n of the stream is a function of (seed, n) alone.
    SplitMix64 rng(seed_, draws_);
    UnitPoint point;
    point.origin = absl::StrCat("random[", rng.draws(), "]");
    point.u.reserve(static_cast<size_t>(dimension_));
    for (int i = 0; i < dimension_; ++i) point.u.push_back(rng.NextUnit());
    draws_ = rng.draws();
    return point;
  }
  uint64_t position() const override { return draws_; }
  void set_position(uint64_t position) override { draws_ = position; }
  std::string_view state_tag() const override { return "random"; }
  std::string_view state_key() const override { return "draws"; }
  std::string_view designer_name() const override { return "random designer"; }

 private:
  int dimension_;
  uint64_t seed_;
  uint64_t draws_ = 0;
};

class HaltonPoints final : public PointSource {
 public:
  explicit HaltonPoints(ScrambledHalton halton) : halton_(std::move(halton)) {}

  UnitPoint Next() override {
    UnitPoint point{halton_.Point(index_),
                    absl::StrCat("halton[", index_, "]")};
    ++index_;
    return point;
  }
  uint64_t position() const override { return index_; }
  void set_position(uint64_t position) override { index_ = position; }
  std::string_view state_tag() const override { return "halton"; }
  std::string_view state_key() const override { return "index"; }
  std::string_view designer_name() const override {
    return "quasi-random designer";
  }

 private:
  ScrambledHalton halton_;
  uint64_t index_ = 0;
};

}  // namespace

std::unique_ptr<PointSource> NewRandomPoints(int dimension, uint64_t seed) {
  return std::make_unique<RandomPoints>(dimension, seed);
}

absl::StatusOr<std::unique_ptr<PointSource>> NewHaltonPoints(int dimension,
                                                             uint64_t seed) {
  if (dimension > ScrambledHalton::kMaxDimension) {
    return absl::InvalidArgumentError(absl::StrCat(
        "QUASI_RANDOM_SEARCH supports at most ", ScrambledHalton::kMaxDimension,
        " parameters, got ", dimension, "; use RANDOM_SEARCH"));
  }
  return std::make_unique<HaltonPoints>(ScrambledHalton(dimension, seed));
}

}  // namespace hptune::algorithms
