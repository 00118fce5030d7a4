#include "algorithms/common/unique_sampler.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "algorithms/encoding/unit_cube.h"

namespace hptune::algorithms {
namespace {

// Grid indices of the points not in `used`, ascending.
std::vector<int64_t> UnusedIndices(const FiniteGrid& grid,
                                   const AssignmentSet& used) {
  std::vector<int64_t> unused;
  for (int64_t i = 0; i < grid.size(); ++i) {
    if (!used.Contains(grid.At(i))) unused.push_back(i);
  }
  return unused;
}

size_t PickIndex(const UnitPoint& point, size_t n) {
  if (point.u.empty()) return 0;
  double scaled =
      std::floor(std::clamp(point.u[0], 0.0, 1.0) * static_cast<double>(n));
  return std::min(static_cast<size_t>(scaled), n - 1);
}

}  // namespace

std::optional<FiniteGrid> EnumerableGrid(const SearchSpace& space) {
  auto grid = FiniteGrid::Create(space);
  if (!grid.ok() || grid->size() > kMaxEnumeratedPoints) return std::nullopt;
  return *std::move(grid);
}

std::vector<Suggestion> SampleUnique(
    const SearchSpace& space, const std::optional<FiniteGrid>& grid,
    AssignmentSet used, int count,
    const std::function<UnitPoint()>& next_point) {
  std::vector<Suggestion> suggestions;
  // Set once draws stop finding room (step 2); then the only source.
  std::optional<std::vector<int64_t>> unused;
  while (static_cast<int>(suggestions.size()) < count) {
    if (!unused.has_value()) {
      Suggestion candidate;
      bool fresh = false;
      for (int attempt = 0; attempt < kMaxAttempts && !fresh; ++attempt) {
        UnitPoint point = next_point();
        candidate = {AssignmentFromUniform(space, point.u),
                     std::move(point.origin)};
        fresh = !used.Contains(candidate.parameters);
      }
      if (fresh || !grid.has_value()) {
        used.Insert(candidate.parameters);
        suggestions.push_back(std::move(candidate));
        continue;
      }
      unused = UnusedIndices(*grid, used);
    }
    if (unused->empty()) break;  // Exhausted.
    UnitPoint point = next_point();
    size_t pick = PickIndex(point, unused->size());
    suggestions.push_back({grid->At((*unused)[pick]), std::move(point.origin)});
    unused->erase(unused->begin() + static_cast<std::ptrdiff_t>(pick));
  }
  return suggestions;
}

}  // namespace hptune::algorithms
