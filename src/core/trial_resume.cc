#include "hptune/core/trial_resume.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace hptune {
namespace {

constexpr std::string_view kPrefix = "resume[";

}  // namespace

std::string ResumeOrigin(int64_t resumed) {
  return absl::StrCat(std::string(kPrefix), resumed, "]");
}

std::optional<int64_t> ResumedTrial(const Trial& trial) {
  std::string_view origin = trial.origin;
  if (!origin.starts_with(kPrefix) || !origin.ends_with(']')) {
    return std::nullopt;
  }
  origin.remove_prefix(kPrefix.size());
  origin.remove_suffix(1);
  int64_t number = 0;
  const auto [end, error] =
      std::from_chars(origin.data(), origin.data() + origin.size(), number);
  if (error != std::errc() || end != origin.data() + origin.size() ||
      number < 1) {
    return std::nullopt;
  }
  return number;
}

int64_t ResumedAtStep(const Trial& trial) {
  if (!ResumedTrial(trial)) return 0;
  int64_t step = 0;
  for (const Measurement& m : trial.measurements) {
    if (m.time < trial.create_time) step = std::max(step, m.step);
  }
  return step;
}

std::vector<int64_t> ResumedTrials(const std::vector<Trial>& trials) {
  std::vector<int64_t> resumed;
  for (const Trial& t : trials) {
    if (std::optional<int64_t> n = ResumedTrial(t)) resumed.push_back(*n);
  }
  std::sort(resumed.begin(), resumed.end());
  return resumed;
}

std::vector<Trial> WithoutResumed(std::vector<Trial> trials) {
  const std::vector<int64_t> resumed = ResumedTrials(trials);
  if (resumed.empty()) return trials;
  std::erase_if(trials, [&](const Trial& t) {
    return std::binary_search(resumed.begin(), resumed.end(), t.number);
  });
  return trials;
}

std::vector<Trial> WithoutSuperseded(std::vector<Trial> trials) {
  std::vector<int64_t> superseded;
  for (const Trial& t : trials) {
    std::optional<int64_t> n = ResumedTrial(t);
    if (n && t.state != TrialState::kFailed &&
        t.state != TrialState::kCancelled) {
      superseded.push_back(*n);
    }
  }
  if (superseded.empty()) return trials;
  std::sort(superseded.begin(), superseded.end());
  std::erase_if(trials, [&](const Trial& t) {
    return std::binary_search(superseded.begin(), superseded.end(), t.number);
  });
  return trials;
}

int64_t TrialsAgainstBudget(const std::vector<Trial>& trials) {
  return std::count_if(trials.begin(), trials.end(), [](const Trial& t) {
    return !ResumedTrial(t).has_value();
  });
}

}  // namespace hptune
