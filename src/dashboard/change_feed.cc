#include "src/dashboard/change_feed.h"

namespace hptune::dashboard {

void ChangeFeed::Publish(std::string message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    messages_.push_back(std::move(message));
    if (messages_.size() > kKept) messages_.pop_front();
    ++seq_;
  }
  changed_.notify_all();
}

uint64_t ChangeFeed::Head() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seq_;
}

bool ChangeFeed::Wait(uint64_t* seen, std::chrono::milliseconds timeout,
                      std::vector<std::string>* out) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait_for(lock, timeout, [&] { return closed_ || seq_ > *seen; });
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
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  changed_.notify_all();
}

bool ChangeFeed::OpenStream() {
  std::lock_guard<std::mutex> lock(mu_);
  if (streams_ >= max_streams_) return false;
  ++streams_;
  return true;
}

void ChangeFeed::CloseStream() {
  std::lock_guard<std::mutex> lock(mu_);
  --streams_;
}

}  // namespace hptune::dashboard
