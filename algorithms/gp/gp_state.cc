#include "algorithms/gp/gp_state.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "algorithms/common/counter_state.h"

namespace hptune::algorithms::gp {
namespace {

constexpr std::string_view kVersion = "gp1";
constexpr std::string_view kForm =
    "gp1;halton=<i>;calls=<c>;fit_rows=<n>;theta=<hex floats, "
    "comma-separated>[;theta1=...]";

// C99 hexadecimal, e.g. "-0x1.8p-3": exact, and locale-independent.
std::string FormatDouble(double v) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), std::fabs(v),
                                 std::chars_format::hex);
  return std::string(std::signbit(v) ? "-0x" : "0x") + std::string(buffer, end);
}

bool ParseUnsigned(std::string_view text, uint64_t& value) {
  if (text.empty()) return false;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

bool ParseDouble(std::string_view text, double& value) {
  const bool negative = text.starts_with('-');
  if (negative) text.remove_prefix(1);
  if (!text.starts_with("0x")) return false;
  text.remove_prefix(2);
  if (text.empty() || text.front() == '-') return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                   value, std::chars_format::hex);
  if (negative) value = -value;
  return ec == std::errc() && end == text.data() + text.size() &&
         std::isfinite(value);
}

// `text` cut at every `separator`.
std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

// The value of "key=value" in `field`.
bool Field(std::string_view field, std::string_view key,
           std::string_view& value) {
  if (field.size() <= key.size() || field.substr(0, key.size()) != key ||
      field[key.size()] != '=') {
    return false;
  }
  value = field.substr(key.size() + 1);
  return true;
}

std::string FormatTheta(const std::vector<double>& theta) {
  std::string text;
  for (size_t i = 0; i < theta.size(); ++i) {
    if (i > 0) text += ',';
    text += FormatDouble(theta[i]);
  }
  return text;
}

}  // namespace

std::string FormatGpState(const GpState& state) {
  std::string text =
      absl::StrCat(std::string(kVersion), ";halton=", state.halton_index,
                   ";calls=", state.suggest_calls, ";fit_rows=", state.fit_rows,
                   ";theta=", FormatTheta(state.theta));
  for (size_t i = 0; i < state.other_thetas.size(); ++i) {
    absl::StrAppend(&text, ";theta", i + 1, "=",
                    FormatTheta(state.other_thetas[i]));
  }
  return text;
}

namespace {

// The theta in `value` (empty or packed_size entries), or an error message.
// Fewer entries come from before the space grew (a parameter joined it:
// ParameterSpec::first_trial); that theta is dropped, so the next call fits
// afresh (gp_model.cc refits without a theta).
absl::StatusOr<std::vector<double>> ParseTheta(std::string_view value,
                                               int packed_size) {
  std::vector<double> theta;
  if (value.empty()) return theta;
  for (std::string_view entry : Split(value, ',')) {
    double v = 0;
    if (!ParseDouble(entry, v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("theta entry \"", std::string(entry),
                       "\" is not a finite hexadecimal float"));
    }
    theta.push_back(v);
  }
  if (static_cast<int>(theta.size()) < packed_size)
    return std::vector<double>{};
  if (static_cast<int>(theta.size()) != packed_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("theta has ", theta.size(),
                     " entries, this search space needs ", packed_size));
  }
  return theta;
}

}  // namespace

absl::StatusOr<GpState> ParseGpState(std::string_view text, int packed_size) {
  GpState state;
  if (text.empty()) return state;
  auto error = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GP designer: cannot restore state \"", std::string(text),
        "\": ", std::string(why), "; expected \"", std::string(kForm), "\""));
  };
  // A study begun under the quasi-random default.
  if (text.starts_with("halton:")) {
    absl::StatusOr<uint64_t> index = ParseCounterState("halton", "index", text);
    if (!index.ok()) return error("not a quasi-random state either");
    state.halton_index = *index;
    return state;
  }
  const std::vector<std::string_view> fields = Split(text, ';');
  if (fields.size() < 5 || fields[0] != kVersion) {
    return error("not a GP designer state of this version");
  }
  std::string_view value;
  if (!Field(fields[1], "halton", value) ||
      !ParseUnsigned(value, state.halton_index) ||
      !Field(fields[2], "calls", value) ||
      !ParseUnsigned(value, state.suggest_calls) ||
      !Field(fields[3], "fit_rows", value) ||
      !ParseUnsigned(value, state.fit_rows) ||
      !Field(fields[4], "theta", value)) {
    return error("a field is missing or malformed");
  }
  absl::StatusOr<std::vector<double>> theta = ParseTheta(value, packed_size);
  if (!theta.ok()) return error(std::string(theta.status().message()));
  state.theta = *std::move(theta);
  for (size_t i = 5; i < fields.size(); ++i) {
    if (!Field(fields[i], absl::StrCat("theta", i - 4), value)) {
      return error(absl::StrCat("field ", i + 1, " is not theta", i - 4));
    }
    absl::StatusOr<std::vector<double>> other = ParseTheta(value, packed_size);
    if (!other.ok()) return error(std::string(other.status().message()));
    state.other_thetas.push_back(*std::move(other));
  }
  return state;
}

namespace {
constexpr std::string_view kFitVersion = "gpfit1";
constexpr std::string_view kFitForm =
    "gpfit1;rows=<n>;theta=<hex floats, comma-separated>[;theta1=...]";
}  // namespace

std::string FormatGpFit(const GpFit& fit) {
  std::string text = absl::StrCat(std::string(kFitVersion), ";rows=", fit.rows);
  for (size_t i = 0; i < fit.thetas.size(); ++i) {
    absl::StrAppend(&text, ";theta", i == 0 ? "" : absl::StrCat(i), "=",
                    FormatTheta(fit.thetas[i]));
  }
  return text;
}

absl::StatusOr<GpFit> ParseGpFit(std::string_view text, int packed_size) {
  auto error = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GP designer: cannot read the fit \"", std::string(text), "\": ",
        std::string(why), "; expected \"", std::string(kFitForm), "\""));
  };
  const std::vector<std::string_view> fields = Split(text, ';');
  GpFit fit;
  std::string_view value;
  if (fields.size() < 2 || fields[0] != kFitVersion ||
      !Field(fields[1], "rows", value) || !ParseUnsigned(value, fit.rows)) {
    return error("not a GP fit of this version");
  }
  for (size_t i = 2; i < fields.size(); ++i) {
    const std::string key = i == 2 ? "theta" : absl::StrCat("theta", i - 2);
    if (!Field(fields[i], key, value)) {
      return error(absl::StrCat("field ", i + 1, " is not ", key));
    }
    absl::StatusOr<std::vector<double>> theta = ParseTheta(value, packed_size);
    if (!theta.ok()) return error(std::string(theta.status().message()));
    fit.thetas.push_back(*std::move(theta));
  }
  return fit;
}

}  // namespace hptune::algorithms::gp
