#include "src/dashboard/change_feed.h"

namespace hptune::dashboard {

void ChangeFeed::Publish(std::string message) {
  {
    MutexLock lock(&mu_);
    messages_.push_back(std::move(message));
    if (messages_.size() > kKept) messages_.pop_front();
    ++seq_;
  }
  changed_.SignalAll();
}

uint64_t ChangeFeed::Head() const {
  MutexLock lock(&mu_);
  return seq_;
}

bool ChangeFeed::Wait(uint64_t* seen, std::chrono::milliseconds timeout,
                      std::vector<std::string>* out) {
  const MonotonicTime deadline = env_.MonotonicNow() + timeout;
  MutexLock lock(&mu_);
  while (!closed_ && seq_ <= *seen) {
    if (!env_.WaitUntil(&changed_, &mu_, deadline)) break;
  }
  if (closed_) return false;
  if (seq_ > *seen) {
    const uint64_t behind = seq_ - *seen;
    const size_t first = behind > messages_.size() ? messages_.size() - 1
                                                   : messages_.size() - behind;
    for (size_t i = first; i < messages_.size(); ++i) {
      out->push_back(messages_[i]);
    }
    *seen = seq_;
  }
  return true;
}

void ChangeFeed::Close() {
  {
    MutexLock lock(&mu_);
    closed_ = true;
  }
  changed_.SignalAll();
}

bool ChangeFeed::OpenStream() {
  MutexLock lock(&mu_);
  if (streams_ >= max_streams_) return false;
  ++streams_;
  return true;
}

void ChangeFeed::CloseStream() {
  MutexLock lock(&mu_);
  --streams_;
}

}  // namespace hptune::dashboard
