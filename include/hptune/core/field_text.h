// Field paths and quoted values in error messages: how every message of a
// config file or a request shows where it is ("spec.params[2].minValue") and
// what it got ("\"GRU\"") and what it takes.
//
// Used by core's config reading and validation and by src/api's reading of
// request messages, so that a file and a request name a problem alike.
// Pure functions; thread-safe.
#ifndef HPTUNE_CORE_FIELD_TEXT_H_
#define HPTUNE_CORE_FIELD_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hptune::field_text {

// A string as a JSON string literal: "GRU", "a \"b\"". Past 256 bytes, the
// first 256 and the length: "aaa..."... (3000000 bytes).
std::string Quote(std::string_view text);

// "trainingInput" + "hyperparameters" -> "trainingInput.hyperparameters";
// an empty prefix gives the field alone.
std::string JoinPath(std::string_view prefix, std::string_view field);
// "x.params" + 2 -> "x.params[2]".
std::string IndexPath(std::string_view path, size_t index);

// `must be one of A, B, C, got "X"`, with " (did you mean B?)" when X is
// close to one of them (a typo, another case, '_' for '-').
std::string MustBeOneOf(const std::vector<std::string>& allowed,
                        std::string_view got);

// " (did you mean X?)" when `got` is close to one of `candidates` (a
// typo, another case, '_' for '-'), else "".
std::string DidYouMean(std::string_view got,
                       const std::vector<std::string>& candidates);

// A list of strings as an error message shows it: short lists as written
// (["a", "b"]), longer ones by their size ("a list of 40 items").
std::string DescribeStrings(const std::vector<std::string>& list);

// Whether `field` is one of `roots` or lies under one ("a.b" is under "a";
// so are "a[0]" and "a.b.c").
bool IsUnderAny(const std::string& field,
                const std::vector<std::string>& roots);

}  // namespace hptune::field_text

#endif  // HPTUNE_CORE_FIELD_TEXT_H_
