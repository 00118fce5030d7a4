// ElasticPool: the dashboard's httplib task queue (DashboardServer). A
// connection holds a thread while httplib reads it (its read timeout per
// receive) and an event stream holds one for its life, so a fixed pool is
// denied to everyone by whoever opens as many idle sockets. This pool keeps
// `core` threads and starts another, up to `max`, whenever a connection
// arrives and none is idle; a thread beyond `core` ends after `linger`
// without work (on the Env's monotonic clock). Past `max`, connections wait
// in the queue.
// Thread-safe: httplib's accept thread enqueues, the pool's threads run.
#ifndef HPTUNE_SRC_DASHBOARD_ELASTIC_POOL_H_
#define HPTUNE_SRC_DASHBOARD_ELASTIC_POOL_H_

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"
#include "httplib.h"

namespace hptune::dashboard {

class ElasticPool : public httplib::TaskQueue {
 public:
  // `env` must outlive the pool.
  ElasticPool(size_t core, size_t max, std::chrono::milliseconds linger,
              Env& env);
  // Shuts down (runs what is queued, then waits for every thread).
  ~ElasticPool() override;

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  void Spawn(bool core) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Work(size_t id, bool core);
  // Waits, counted idle, for a job or the shutdown; a thread beyond core_
  // waits linger_ at most. Whether a job is queued.
  bool WaitForJob(bool core) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Joins the threads that ended (they hold mutex_ no more).
  void JoinEnded() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const size_t core_;
  const size_t max_;
  const std::chrono::milliseconds linger_;
  Env& env_;
  Mutex mutex_;
  CondVar work_;  // A job queued, or shutting down.
  std::deque<std::function<void()>> jobs_ ABSL_GUARDED_BY(mutex_);
  // Running, by id.
  std::map<size_t, std::thread> threads_ ABSL_GUARDED_BY(mutex_);
  // Returned from Work, to join.
  std::vector<std::thread> ended_ ABSL_GUARDED_BY(mutex_);
  size_t next_id_ ABSL_GUARDED_BY(mutex_) = 0;
  size_t idle_ ABSL_GUARDED_BY(mutex_) = 0;
  bool shutdown_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_ELASTIC_POOL_H_
