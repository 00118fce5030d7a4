#include "hptune/runner/trial_admission.h"

#include <algorithm>
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
  if (admission != nullptr) admission->Give(uid_);
}

TrialAdmission::Waiter::~Waiter() {
  if (admission_ != nullptr) admission_->Leave(this, uid_);
}

std::optional<TrialAdmission::Ticket> TrialAdmission::Waiter::TryAdmit() {
  if (admission_ == nullptr) return Ticket();
  return admission_->Admit(this, uid_);
}

std::optional<TrialAdmission::Ticket> TrialAdmission::Admit(const Waiter* who,
                                                            int64_t uid) {
  // Not counted: nothing to give back.
  if (!Limits(uid)) return Ticket();
  MutexLock lock(&mu_);
  User& user = users_[uid];
  auto queued = std::find(user.waiting.begin(), user.waiting.end(), who);
  // Free places go to those who waited longer first.
  const int64_t ahead = queued - user.waiting.begin();
  if (user.running + ahead < max_per_user_) {
    if (queued != user.waiting.end()) user.waiting.erase(queued);
    ++user.running;
    return Ticket(this, uid);
  }
  if (who != nullptr && queued == user.waiting.end()) {
    user.waiting.push_back(who);
  }
  Tidy(uid);
  return std::nullopt;
}

void TrialAdmission::Leave(const Waiter* who, int64_t uid) {
  MutexLock lock(&mu_);
  auto it = users_.find(uid);
  if (it == users_.end()) return;
  std::erase(it->second.waiting, who);
  Tidy(uid);
}

void TrialAdmission::Give(int64_t uid) {
  MutexLock lock(&mu_);
  auto it = users_.find(uid);
  if (it == users_.end()) return;
  --it->second.running;
  Tidy(uid);
}

void TrialAdmission::Tidy(int64_t uid) {
  auto it = users_.find(uid);
  if (it != users_.end() && it->second.running <= 0 &&
      it->second.waiting.empty()) {
    users_.erase(it);
  }
}

int64_t TrialAdmission::Running(int64_t uid) const {
  MutexLock lock(&mu_);
  auto it = users_.find(uid);
  return it == users_.end() ? 0 : it->second.running;
}

int64_t TrialAdmission::Waiting(int64_t uid) const {
  MutexLock lock(&mu_);
  auto it = users_.find(uid);
  return it == users_.end() ? 0
                            : static_cast<int64_t>(it->second.waiting.size());
}

}  // namespace hptune::runner
