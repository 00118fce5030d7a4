#include "src/engine/study_locks.h"

namespace hptune::engine {

size_t StudyLocks::size() const {
  MutexLock lock(&mu_);
  return entries_.size();
}

int StudyLocks::users(std::string_view study) const {
  MutexLock lock(&mu_);
  auto entry = entries_.find(study);
  return entry == entries_.end() ? 0 : entry->second.users;
}

StudyLocks::Entries::iterator StudyLocks::Enter(std::string_view study) {
  MutexLock lock(&mu_);
  auto entry = entries_.find(study);
  if (entry == entries_.end()) {
    entry = entries_.try_emplace(std::string(study)).first;
  }
  ++entry->second.users;
  return entry;
}

void StudyLocks::Leave(Entries::iterator entry) {
  MutexLock lock(&mu_);
  if (--entry->second.users == 0) entries_.erase(entry);
}

StudyLock::StudyLock(StudyLocks& locks, std::string_view study)
    : locks_(locks), entry_(locks.Enter(study)) {
  entry_->second.mu.Lock();
}

StudyLock::~StudyLock() {
  entry_->second.mu.Unlock();
  locks_.Leave(entry_);
}

}  // namespace hptune::engine
