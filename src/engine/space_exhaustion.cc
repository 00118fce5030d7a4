#include "src/engine/space_exhaustion.h"

#include <optional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"

namespace hptune::engine {
// Whether `trials` trials could cover the space: it is finite and has at
// most that many points. Reads the spec alone.
bool MayBeExhausted(const SearchSpace& space, int64_t trials) {
  std::optional<int64_t> size = space.PointCount(-1, trials + 1);
  return size && *size <= trials;
}

// Whether every point of a finite search space is among `tried` (designers
// never repeat a point, so nothing is left to suggest). Cheap unless the
// space is small enough to have been covered.
bool SpaceExhausted(const SearchSpace& space,
                    const std::vector<const ParameterAssignment*>& tried) {
  const auto limit = static_cast<int64_t>(tried.size());
  std::optional<int64_t> size = space.PointCount(-1, limit + 1);
  if (!size || *size > limit) return false;
  std::set<std::string> distinct;
  for (const ParameterAssignment* a : tried) {
    std::string key;
    for (const auto& [name, value] : *a) {
      absl::StrAppend(&key, name, "=", value.ToString(), "\n");
    }
    distinct.insert(std::move(key));
  }
  return static_cast<int64_t>(distinct.size()) >= *size;
}

}  // namespace hptune::engine
