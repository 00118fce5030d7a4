// SettingsDecoder: reads a stopping rule's settings block (StoppingSettings,
// hptune/core/stopping_settings.h) into the rule's options, as each rule's
// factory in stopping_registry.cc does.
//
// A rule names each setting it takes with its range; Finish() then refuses
// the names no rule read, so a misspelt setting is an error, not ignored.
// Errors read "NAME: PROBLEM" (e.g. "minMeasurementCount: must be 2 to
// 1000, got 1"), and whoever knows where the block was written puts its path
// before them. Private to algorithms/stopping. Not thread-safe.
#ifndef HPTUNE_ALGORITHMS_STOPPING_SETTINGS_DECODER_H_
#define HPTUNE_ALGORITHMS_STOPPING_SETTINGS_DECODER_H_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "hptune/core/stopping_settings.h"

namespace hptune::algorithms {

class SettingsDecoder {
 public:
  explicit SettingsDecoder(const StoppingSettings& settings)
      : settings_(settings) {}

  // Sets *out to the integer setting `name` when it is given: an error unless
  // it is an integer in [min, max].
  void Integer(std::string_view name, int64_t min, int64_t max, int64_t* out);
  void Integer(std::string_view name, int min, int max, int* out);
  // The same for a finite number in [min, max].
  void Number(std::string_view name, double min, double max, double* out);

  // OK, or the first error: a bad value, or a setting no call above read.
  absl::Status Finish() const;

 private:
  void Fail(std::string_view name, std::string problem);

  const StoppingSettings& settings_;
  std::set<std::string, std::less<>> read_;
  absl::Status status_;
};

}  // namespace hptune::algorithms

#endif  // HPTUNE_ALGORITHMS_STOPPING_SETTINGS_DECODER_H_
