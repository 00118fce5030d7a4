// A set of parameter assignments compared by value, for designers that must
// not repeat a point (grid, random, quasi-random skip what the study's
// completed and pending trials already hold).
//
// Numeric values compare by their double value (so INTEGER 3 and DOUBLE 3.0
// are the same point), strings exactly. Value type; thread-compatible.
#ifndef HPTUNE_ALGORITHMS_ENCODING_ASSIGNMENT_SET_H_
#define HPTUNE_ALGORITHMS_ENCODING_ASSIGNMENT_SET_H_

#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

#include "hptune/core/search_space.h"
#include "hptune/core/trial.h"

namespace hptune::algorithms {

class AssignmentSet {
 public:
  // The parameters of every trial in `completed` and `active`.
  static AssignmentSet FromTrials(const std::vector<Trial>& completed,
                                  const std::vector<Trial>& active);

  // True when `assignment` was not in the set before.
  bool Insert(const ParameterAssignment& assignment);
  bool Contains(const ParameterAssignment& assignment) const;
  size_t size() const { return keys_.size(); }

 private:
  // An injective byte string of the assignment.
  static std::string Key(const ParameterAssignment& assignment);

  std::unordered_set<std::string> keys_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_ENCODING_ASSIGNMENT_SET_H_
