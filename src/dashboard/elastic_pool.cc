#include "src/dashboard/elastic_pool.h"

#include <utility>

namespace hptune::dashboard {

ElasticPool::ElasticPool(size_t core, size_t max,
                         std::chrono::milliseconds linger)
    : core_(core), max_(max < core ? core : max), linger_(linger) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < core_; ++i) Spawn(/*core=*/true);
}

ElasticPool::~ElasticPool() { shutdown(); }

void ElasticPool::enqueue(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mutex_);
  JoinEnded();
  jobs_.push_back(std::move(fn));
  // Idle threads take queued jobs one each; start one for the rest.
  if (jobs_.size() > idle_ && threads_.size() < max_ && !shutdown_) {
    Spawn(/*core=*/false);
  }
  work_.notify_one();
}

void ElasticPool::shutdown() {
  std::map<size_t, std::thread> running;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
    work_.notify_all();
    JoinEnded();
    running.swap(threads_);
  }
  // Each thread runs what is queued, then ends; it moves itself to ended_
  // only while it is in threads_, which is now empty.
  for (auto& [id, thread] : running) thread.join();
}

void ElasticPool::Spawn(bool core) {
  const size_t id = next_id_++;
  threads_.emplace(id, std::thread([this, id, core] { Work(id, core); }));
}

void ElasticPool::JoinEnded() {
  for (std::thread& thread : ended_) thread.join();
  ended_.clear();
}

void ElasticPool::Work(size_t id, bool core) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto ready = [this] { return !jobs_.empty() || shutdown_; };
  while (true) {
    ++idle_;
    const bool woken = core ? (work_.wait(lock, ready), true)
                            : work_.wait_for(lock, linger_, ready);
    --idle_;
    if (jobs_.empty() && (shutdown_ || !woken)) break;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
  // A thread that lingered out joins the ended ones; after shutdown, the
  // shutting-down thread holds the handle and joins it.
  if (auto it = threads_.find(id); it != threads_.end()) {
    ended_.push_back(std::move(it->second));
    threads_.erase(it);
  }
}

}  // namespace hptune::dashboard
