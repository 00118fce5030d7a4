#include "src/engine/background_work.h"

#include <algorithm>

namespace hptune::engine {

BackgroundWork::BackgroundWork(size_t max_queued)
    : max_queued_(max_queued), thread_([this] { Run(); }) {}

BackgroundWork::~BackgroundWork() {
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
    queued_.clear();
    order_.clear();
  }
  cancelled_ = true;
  changed_.SignalAll();
  thread_.join();
}

bool BackgroundWork::Submit(const std::string& key,
                            algorithms::Designer::DeferredWork work) {
  {
    MutexLock lock(&mutex_);
    if (stopping_ || running_ == key || results_.contains(key)) return false;
    auto it = queued_.find(key);
    if (it != queued_.end()) {
      it->second = std::move(work);
      return true;
    }
    if (queued_.size() >= max_queued_) return false;
    queued_.emplace(key, std::move(work));
    order_.push_back(key);
  }
  changed_.SignalAll();
  return true;
}

std::optional<std::string> BackgroundWork::TakeResult(std::string_view key) {
  MutexLock lock(&mutex_);
  auto it = results_.find(key);
  if (it == results_.end()) return std::nullopt;
  std::string result = std::move(it->second);
  results_.erase(it);
  return result;
}

void BackgroundWork::Forget(std::string_view key) {
  MutexLock lock(&mutex_);
  if (auto it = queued_.find(key); it != queued_.end()) {
    queued_.erase(it);
    order_.erase(std::find(order_.begin(), order_.end(), key));
  }
  if (auto it = results_.find(key); it != results_.end()) results_.erase(it);
  if (running_ == key) running_forgotten_ = true;
}

bool BackgroundWork::WaitIdle(std::chrono::steady_clock::time_point deadline) {
  MutexLock lock(&mutex_);
  while (!queued_.empty() || running_.has_value()) {
    if (!changed_.WaitUntil(&mutex_, deadline)) break;
  }
  return queued_.empty() && !running_.has_value();
}

void BackgroundWork::Run() {
  while (true) {
    std::string key;
    algorithms::Designer::DeferredWork work;
    {
      MutexLock lock(&mutex_);
      while (!stopping_ && order_.empty()) changed_.Wait(&mutex_);
      if (stopping_) return;
      key = std::move(order_.front());
      order_.pop_front();
      auto it = queued_.find(key);
      work = std::move(it->second);
      queued_.erase(it);
      running_ = key;
      running_forgotten_ = false;
    }
    std::string result = work(cancelled_);
    MutexLock lock(&mutex_);
    if (!result.empty() && !running_forgotten_ && !stopping_) {
      results_[key] = std::move(result);
    }
    running_.reset();
    changed_.SignalAll();
  }
}

}  // namespace hptune::engine
