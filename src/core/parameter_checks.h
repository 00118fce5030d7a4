// The checks of a study's parameters that ValidateStudySpec (validation.cc)
// runs on each one: its name, range, values and scale, and a conditional
// child's condition against its parent; and the Checker they report to.
// Internal to core; pure functions, thread-safe.
#ifndef HPTUNE_SRC_CORE_PARAMETER_CHECKS_H_
#define HPTUNE_SRC_CORE_PARAMETER_CHECKS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"

namespace hptune::validation_internal {

inline bool IsAsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

class Checker {
 public:
  explicit Checker(std::vector<FieldError>* errors) : errors_(errors) {}
  void Error(std::string field, std::string message) {
    errors_->push_back({std::move(field), std::move(message)});
  }

 private:
  std::vector<FieldError>* errors_;
};

// Parameter `p` at config path `path`: its name, its values for its type,
// no fields of another type, and a type `algorithm` can search.
void CheckParameter(const std::string& path, const ParameterSpec& p,
                    Algorithm algorithm, Checker& check);

// A child's condition against its parent: the parent exists and comes first,
// can be listed (not DOUBLE), and the values given are of its type and in
// its domain.
void CheckCondition(const SearchSpace& space, int i,
                    const std::string& child_path, Checker& check);

// In a space whose children all follow their parents and whose names are
// unique: the flat list is in the order its nested form (config, request,
// stored JSON) reads back, each parameter followed by its children's
// subtrees; else the first child listed out of that order is reported.
void CheckTreeOrder(const SearchSpace& space, std::string_view prefix,
                    Checker& check);

}  // namespace hptune::validation_internal

#endif  // HPTUNE_SRC_CORE_PARAMETER_CHECKS_H_
