#include "algorithms/stopping/settings_decoder.h"

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hptune::algorithms {
namespace {

// A value as the config would show it: strings quoted.
std::string Shown(const StoppingSettingValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return absl::StrCat("\"", v, "\"");
        } else {
          return absl::StrCat(v);
        }
      },
      value);
}

}  // namespace

void SettingsDecoder::Fail(std::string_view name, std::string problem) {
  if (status_.ok()) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat(std::string(name), ": ", problem));
  }
}

void SettingsDecoder::Integer(std::string_view name, int64_t min, int64_t max,
                              int64_t* out) {
  read_.emplace(name);
  const StoppingSettingValue* value = settings_.Find(name);
  if (value == nullptr) return;
  const int64_t* number = std::get_if<int64_t>(value);
  if (number == nullptr) {
    return Fail(name, "must be an integer, got " + Shown(*value));
  }
  if (*number < min || *number > max) {
    return Fail(name,
                absl::StrCat("must be ", min, " to ", max, ", got ", *number));
  }
  *out = *number;
}

void SettingsDecoder::Integer(std::string_view name, int min, int max,
                              int* out) {
  int64_t wide = *out;
  Integer(name, int64_t{min}, int64_t{max}, &wide);
  *out = static_cast<int>(wide);
}

void SettingsDecoder::Number(std::string_view name, double min, double max,
                             double* out) {
  read_.emplace(name);
  const StoppingSettingValue* value = settings_.Find(name);
  if (value == nullptr) return;
  double number = 0;
  if (const int64_t* integer = std::get_if<int64_t>(value)) {
    number = static_cast<double>(*integer);
  } else if (const double* real = std::get_if<double>(value)) {
    number = *real;
  } else {
    return Fail(name, "must be a number, got " + Shown(*value));
  }
  if (!(number >= min && number <= max)) {
    return Fail(name, absl::StrCat("must be ", min, " to ", max, ", got ",
                                   Shown(*value)));
  }
  *out = number;
}

absl::Status SettingsDecoder::Finish() const {
  if (!status_.ok()) return status_;
  for (const auto& [name, value] : settings_.values) {
    if (read_.contains(name)) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": not a setting of this rule; its settings: ",
        read_.empty()
            ? "none"
            : absl::StrJoin(
                  std::vector<std::string>(read_.begin(), read_.end()), ", ")));
  }
  return absl::OkStatus();
}

}  // namespace hptune::algorithms
