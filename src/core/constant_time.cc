#include "src/core/constant_time.h"

namespace hptune {

bool ConstantTimeEquals(std::string_view given, std::string_view expected) {
  // Volatile keeps the compiler from ending the loop at the first difference.
  volatile unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    const unsigned char g =
        i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff = diff | (g ^ static_cast<unsigned char>(expected[i]));
  }
  return diff == 0;
}

}  // namespace hptune
