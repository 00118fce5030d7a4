#include "hptune/core/check.h"

#include <cstdio>
#include <cstdlib>

namespace hptune::internal {

void CheckFailed(const char* file, int line, const char* condition,
                 const std::string& message) {
  std::fprintf(stderr, "hptune: broken invariant at %s:%d (%s): %s\n", file,
               line, condition, message.c_str());
  std::abort();
}

}  // namespace hptune::internal
