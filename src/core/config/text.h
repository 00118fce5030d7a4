// Text helpers for config and validation messages: quoting, number
// formatting, field paths and "did you mean" suggestions.
//
// Private to hptune's core (config parsing, validation, machine types), so
// that every message shows values the same way. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_CORE_CONFIG_TEXT_H_
#define HPTUNE_SRC_CORE_CONFIG_TEXT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/field_text.h"

namespace hptune::config_internal {

// PATH_MAX less its terminator: the longest path a config may name.
inline constexpr size_t kMaxPathBytes = 4095;
// Why both dialects refuse every TPU field.
inline constexpr char kNoTpus[] = "hptune runs no TPUs";

// "line 3, column 7": the field of an error that has no field path yet.
std::string PositionField(int line, int column);

using field_text::IndexPath;  // hptune/core/field_text.h
using field_text::JoinPath;
using field_text::Quote;

// The shortest text that reads back to the same double: 1e-05, 0.1, -1,
// inf, nan.
std::string FormatNumber(double value);

// The candidate closest to `input` ignoring case, '_' and '-' (so
// "worker_count" finds workerCount and "n1_standard_8" n1-standard-8), when
// close enough to be a likely typo.
std::optional<std::string> Suggest(std::string_view input,
                                   const std::vector<std::string>& candidates);
// " (did you mean X?)" or "".
std::string DidYouMean(std::string_view input,
                       const std::vector<std::string>& candidates);

// "A, B or C" (`last` is " or " or " and ").
std::string JoinWords(const std::vector<std::string>& words,
                      std::string_view last = " or ");

using field_text::MustBeOneOf;  // hptune/core/field_text.h

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_TEXT_H_
