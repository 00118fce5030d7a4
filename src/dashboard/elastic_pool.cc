#include "src/dashboard/elastic_pool.h"

#include <utility>

namespace hptune::dashboard {

ElasticPool::ElasticPool(size_t core, size_t max,
                         std::chrono::milliseconds linger, Env& env)
    : core_(core), max_(max < core ? core : max), linger_(linger), env_(env) {
  MutexLock lock(&mutex_);
  for (size_t i = 0; i < core_; ++i) Spawn(/*core=*/true);
}

ElasticPool::~ElasticPool() { shutdown(); }

void ElasticPool::enqueue(std::function<void()> fn) {
  MutexLock lock(&mutex_);
  JoinEnded();
  jobs_.push_back(std::move(fn));
  // Idle threads take queued jobs one each; start one for the rest.
  if (jobs_.size() > idle_ && threads_.size() < max_ && !shutdown_) {
    Spawn(/*core=*/false);
  }
  work_.Signal();
}

void ElasticPool::shutdown() {
  std::map<size_t, std::thread> running;
  {
    MutexLock lock(&mutex_);
    shutdown_ = true;
    work_.SignalAll();
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

bool ElasticPool::WaitForJob(bool core) {
  const MonotonicTime deadline = env_.MonotonicNow() + linger_;
  ++idle_;
  while (jobs_.empty() && !shutdown_) {
    if (core) {
      work_.Wait(&mutex_);
    } else if (!env_.WaitUntil(&work_, &mutex_, deadline)) {
      break;
    }
  }
  --idle_;
  return !jobs_.empty();
}

void ElasticPool::Work(size_t id, bool core) {
  while (true) {
    std::function<void()> job;
    {
      MutexLock lock(&mutex_);
      if (!WaitForJob(core)) {
        // A thread that lingered out joins the ended ones; after shutdown,
        // the shutting-down thread holds the handle and joins it.
        if (auto it = threads_.find(id); it != threads_.end()) {
          ended_.push_back(std::move(it->second));
          threads_.erase(it);
        }
        return;
      }
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace hptune::dashboard
