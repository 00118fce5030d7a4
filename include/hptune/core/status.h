// Status helpers shared by every hptune module.
//
// Fallible calls across modules return absl::Status / absl::StatusOr<T>.
// Debian's abseil (20220623) has no status macros, so hptune defines its own
// small HPTUNE_RETURN_IF_ERROR / HPTUNE_ASSIGN_OR_RETURN here. Header-only,
// thread-safe.
#ifndef HPTUNE_CORE_STATUS_H_
#define HPTUNE_CORE_STATUS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HPTUNE_STATUS_CONCAT_INNER_(a, b) a##b
#define HPTUNE_STATUS_CONCAT_(a, b) HPTUNE_STATUS_CONCAT_INNER_(a, b)

// Returns the status of `expr` from the enclosing function when it is not OK.
#define HPTUNE_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::absl::Status hptune_status_ = (expr);          \
    if (!hptune_status_.ok()) return hptune_status_; \
  } while (false)

// `HPTUNE_ASSIGN_OR_RETURN(auto x, F());` declares x from F()'s value, or
// returns F()'s error status from the enclosing function.
#define HPTUNE_ASSIGN_OR_RETURN(lhs, expr) \
  HPTUNE_ASSIGN_OR_RETURN_IMPL_(           \
      HPTUNE_STATUS_CONCAT_(hptune_statusor_, __LINE__), lhs, expr)
#define HPTUNE_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // HPTUNE_CORE_STATUS_H_
