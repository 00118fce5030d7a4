#include "src/runner/job_slots.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hptune::runner::internal {

JobSlots::JobSlots(std::string job_id, int parallel)
    : job_id_(std::move(job_id)), parallel_(parallel) {}

std::string JobSlots::Client(int slot) const {
  return absl::StrCat(job_id_, "/slot-", slot);
}

void JobSlots::FindUnfinished(const std::vector<Trial>& trials) {
  const std::string prefix = absl::StrCat(job_id_, "/slot-");
  for (const Trial& t : trials) {
    if (t.state != TrialState::kActive || !t.client_id.starts_with(prefix)) {
      continue;
    }
    const std::string_view digits =
        std::string_view(t.client_id).substr(prefix.size());
    int slot = -1;
    auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), slot);
    if (error != std::errc() || end != digits.data() + digits.size() ||
        slot < 0) {
      continue;
    }
    unfinished_[t.number] = slot;
    free_.insert(slot);
  }
}

int JobSlots::NextFree() const {
  for (const auto& [trial, slot] : unfinished_) {
    if (free_.contains(slot)) return slot;
  }
  if (free_.empty()) return next_unused_;
  return next_unused_ < parallel_ ? std::min(*free_.begin(), next_unused_)
                                  : *free_.begin();
}

void JobSlots::Occupy(int slot, std::unique_ptr<TrialExecution> execution) {
  free_.erase(slot);
  running_[slot] = std::move(execution);
  while (next_unused_ < parallel_ &&
         (running_.contains(next_unused_) || free_.contains(next_unused_))) {
    ++next_unused_;
  }
}

void JobSlots::Release(int slot) {
  running_.erase(slot);
  free_.insert(slot);
}

void JobSlots::Trim() {
  std::erase_if(free_, [&](int slot) {
    return slot >= parallel_ &&
           std::none_of(unfinished_.begin(), unfinished_.end(),
                        [&](const auto& u) { return u.second == slot; });
  });
}

}  // namespace hptune::runner::internal
