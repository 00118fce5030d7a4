#include "src/engine/background_work.h"

#include <algorithm>

namespace hptune::engine {

BackgroundWork::BackgroundWork(size_t max_queued)
    : max_queued_(max_queued), thread_([this] { Run(); }) {}

BackgroundWork::~BackgroundWork() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queued_.clear();
    order_.clear();
  }
  cancelled_ = true;
  changed_.notify_all();
  thread_.join();
}

bool BackgroundWork::Submit(const std::string& key,
                            algorithms::Designer::DeferredWork work) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    auto it = queued_.find(key);
    if (it != queued_.end()) {
      it->second = std::move(work);
      return true;
    }
    if (queued_.size() >= max_queued_) return false;
    queued_.emplace(key, std::move(work));
    order_.push_back(key);
  }
  changed_.notify_all();
  return true;
}

std::optional<std::string> BackgroundWork::TakeResult(std::string_view key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = results_.find(key);
  if (it == results_.end()) return std::nullopt;
  std::string result = std::move(it->second);
  results_.erase(it);
  return result;
}

void BackgroundWork::Forget(std::string_view key) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = queued_.find(key); it != queued_.end()) {
    queued_.erase(it);
    order_.erase(std::find(order_.begin(), order_.end(), key));
  }
  if (auto it = results_.find(key); it != results_.end()) results_.erase(it);
  if (running_ == key) running_forgotten_ = true;
}

bool BackgroundWork::WaitIdle(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_until(
      lock, deadline, [&] { return queued_.empty() && !running_.has_value(); });
}

void BackgroundWork::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !order_.empty(); });
    if (stopping_) return;
    std::string key = std::move(order_.front());
    order_.pop_front();
    auto it = queued_.find(key);
    algorithms::Designer::DeferredWork work = std::move(it->second);
    queued_.erase(it);
    running_ = key;
    running_forgotten_ = false;
    lock.unlock();
    std::string result = work(cancelled_);
    lock.lock();
    if (!result.empty() && !running_forgotten_ && !stopping_) {
      results_[key] = std::move(result);
    }
    running_.reset();
    changed_.notify_all();
  }
}

}  // namespace hptune::engine
