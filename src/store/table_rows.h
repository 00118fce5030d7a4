// What the table files of SqliteStore (study_tables.cc, trial_tables.cc,
// job_tables.cc) share to read and write a row's columns: errors naming
// their record, stored states and optional times. Internal to the store;
// pure functions, thread-safe.
#ifndef HPTUNE_SRC_STORE_TABLE_ROWS_H_
#define HPTUNE_SRC_STORE_TABLE_ROWS_H_

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/time.h"

namespace hptune::store::internal {

// Names the record a decoding error is about.
inline absl::Status InRecord(const absl::Status& status,
                             const std::string& record) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(record, ": ", status.message()));
}

inline std::string StudyLabel(std::string_view study) {
  return absl::StrCat("study \"", std::string(study), "\"");
}

inline std::string TrialLabel(std::string_view study, int64_t number) {
  return absl::StrCat("study \"", std::string(study), "\": trial ", number);
}

// A state column back to its enum; DataLoss for a name this build does not
// know.
template <typename State>
absl::StatusOr<State> ParseState(std::optional<State> parsed,
                                 const std::string& text,
                                 const std::string& record) {
  if (parsed) return *parsed;
  return absl::DataLossError(
      absl::StrCat(record, ": stored state \"", text, "\" is unknown"));
}

// The same with the record's label made only for the error: the hot reads
// (a trial's state on every measurement and check) need not build it.
template <typename State, std::invocable MakeLabel>
absl::StatusOr<State> ParseState(std::optional<State> parsed,
                                 const std::string& text,
                                 const MakeLabel& make_label) {
  if (parsed) return *parsed;
  return ParseState(parsed, text, std::string(make_label()));
}

inline std::optional<int64_t> OptionalMicros(
    const std::optional<Timestamp>& t) {
  if (!t) return std::nullopt;
  return ToUnixMicros(*t);
}

inline std::optional<Timestamp> OptionalTime(std::optional<int64_t> micros) {
  if (!micros) return std::nullopt;
  return FromUnixMicros(*micros);
}

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_TABLE_ROWS_H_
