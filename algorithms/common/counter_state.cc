#include "algorithms/common/counter_state.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace hptune::algorithms {
namespace {

// Debian's abseil has its own absl::string_view, distinct from std's.
absl::string_view Absl(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace

std::string FormatCounterState(std::string_view tag, std::string_view key,
                               uint64_t value) {
  return absl::StrCat(Absl(tag), ":", Absl(key), "=", value);
}

absl::StatusOr<uint64_t> ParseCounterState(std::string_view tag,
                                           std::string_view key,
                                           std::string_view state) {
  if (state.empty()) return 0;
  absl::string_view rest = Absl(state);
  uint64_t value = 0;
  if (!absl::ConsumePrefix(&rest, Absl(tag)) ||
      !absl::ConsumePrefix(&rest, ":") ||
      !absl::ConsumePrefix(&rest, Absl(key)) ||
      !absl::ConsumePrefix(&rest, "=") || rest.empty() ||
      !absl::ascii_isdigit(static_cast<unsigned char>(rest.front())) ||
      !absl::ascii_isdigit(static_cast<unsigned char>(rest.back())) ||
      !absl::SimpleAtoi(rest, &value)) {
    return absl::InvalidArgumentError(absl::StrCat(
        Absl(tag), " designer: cannot restore state \"", Absl(state),
        "\": expected \"", Absl(tag), ":", Absl(key), "=<count>\""));
  }
  return value;
}

}  // namespace hptune::algorithms
