// HPTUNE_CHECK: aborts the process when an invariant that only a
// programming error can break does not hold, naming the place, the
// condition and why it matters. Never for bad input: input errors are
// absl::Status values naming the field and the value. Used by every module;
// thread-safe.
//
//   HPTUNE_CHECK(row.size() == n_, "BorderedCholesky::AppendRow: row of "
//                                  "the wrong length");
//
// `message` is evaluated only when the check fails, so it may build a
// string (absl::StrCat) at no cost on the normal path.
#ifndef HPTUNE_CORE_CHECK_H_
#define HPTUNE_CORE_CHECK_H_

#include <string>

namespace hptune::internal {

// Prints "hptune: broken invariant at FILE:LINE (CONDITION): MESSAGE" to
// stderr and aborts.
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              const std::string& message);

}  // namespace hptune::internal

#define HPTUNE_CHECK(condition, message)                              \
  do {                                                                \
    if (!(condition)) {                                               \
      ::hptune::internal::CheckFailed(__FILE__, __LINE__, #condition, \
                                      (message));                     \
    }                                                                 \
  } while (false)

// For a place control never reaches: aborts as a failed check does.
#define HPTUNE_UNREACHABLE(message) \
  ::hptune::internal::CheckFailed(__FILE__, __LINE__, "unreachable", (message))

#endif  // HPTUNE_CORE_CHECK_H_
