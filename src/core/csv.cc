#include "src/core/csv.h"

#include <charconv>
#include <cmath>

namespace hptune {
namespace {

bool IsFiniteNumber(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && std::isfinite(value);
}

}  // namespace

std::string CsvCell(std::string_view text) {
  std::string cell;
  // A spreadsheet runs what follows these as a formula (=HYPERLINK(...),
  // -2+3+cmd|' /C calc'!A0); a tab or CR before one hides it.
  if (!text.empty() &&
      std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos &&
      !IsFiniteNumber(text)) {
    cell = "'";
  }
  cell += text;
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace hptune
