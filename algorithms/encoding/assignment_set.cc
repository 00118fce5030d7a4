#include "algorithms/encoding/assignment_set.h"

#include <bit>
#include <cstdint>

namespace hptune::algorithms {
namespace {

// Length-prefixed, so no two different sequences of parts share a key.
void AppendPart(std::string_view part, std::string& key) {
  uint64_t size = part.size();
  key.append(reinterpret_cast<const char*>(&size), sizeof(size));
  key.append(part);
}

}  // namespace

AssignmentSet AssignmentSet::FromTrials(const std::vector<Trial>& completed,
                                        const std::vector<Trial>& active) {
  AssignmentSet set;
  for (const auto* trials : {&completed, &active}) {
    for (const Trial& trial : *trials) set.Insert(trial.parameters);
  }
  return set;
}

bool AssignmentSet::Insert(const ParameterAssignment& assignment) {
  return keys_.insert(Key(assignment)).second;
}

bool AssignmentSet::Contains(const ParameterAssignment& assignment) const {
  return keys_.contains(Key(assignment));
}

std::string AssignmentSet::Key(const ParameterAssignment& assignment) {
  std::string key;
  for (const auto& [name, value] : assignment) {
    AppendPart(name, key);
    if (value.is_string()) {
      key.push_back('s');
      AppendPart(value.AsString(), key);
    } else {
      // + 0.0 turns -0.0 into 0.0: equal values, equal bits.
      auto bits = std::bit_cast<uint64_t>(value.AsDouble() + 0.0);
      key.push_back('n');
      key.append(reinterpret_cast<const char*>(&bits), sizeof(bits));
    }
  }
  return key;
}

}  // namespace hptune::algorithms
