#include "hptune/runner/trial_admission.h"

#include <utility>

namespace hptune::runner {

TrialAdmission::Ticket::Ticket(Ticket&& other) noexcept
    : admission_(std::exchange(other.admission_, nullptr)), uid_(other.uid_) {}

TrialAdmission::Ticket& TrialAdmission::Ticket::operator=(
    Ticket&& other) noexcept {
  if (this != &other) {
    Release();
    admission_ = std::exchange(other.admission_, nullptr);
    uid_ = other.uid_;
  }
  return *this;
}

TrialAdmission::Ticket::~Ticket() { Release(); }

void TrialAdmission::Ticket::Release() {
  TrialAdmission* admission = std::exchange(admission_, nullptr);
  if (admission == nullptr) return;
  MutexLock lock(&admission->mu_);
  auto it = admission->running_.find(uid_);
  if (it != admission->running_.end() && --it->second <= 0) {
    admission->running_.erase(it);
  }
}

std::optional<TrialAdmission::Ticket> TrialAdmission::TryAdmit(int64_t uid) {
  // Not counted: nothing to give back.
  if (!Limits(uid)) return Ticket(nullptr, uid);
  MutexLock lock(&mu_);
  int64_t& running = running_[uid];
  if (running >= max_per_user_) return std::nullopt;
  ++running;
  return Ticket(this, uid);
}

int64_t TrialAdmission::Running(int64_t uid) const {
  MutexLock lock(&mu_);
  auto it = running_.find(uid);
  return it == running_.end() ? 0 : it->second;
}

}  // namespace hptune::runner
