// ElasticPool: the dashboard's httplib task queue (DashboardServer). A
// connection holds a thread while httplib reads it (its read timeout per
// receive) and an event stream holds one for its life, so a fixed pool is
// denied to everyone by whoever opens as many idle sockets. This pool keeps
// `core` threads and starts another, up to `max`, whenever a connection
// arrives and none is idle; a thread beyond `core` ends after `linger`
// without work. Past `max`, connections wait in the queue.
// Thread-safe: httplib's accept thread enqueues, the pool's threads run.
#ifndef HPTUNE_SRC_DASHBOARD_ELASTIC_POOL_H_
#define HPTUNE_SRC_DASHBOARD_ELASTIC_POOL_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "httplib.h"

namespace hptune::dashboard {

class ElasticPool : public httplib::TaskQueue {
 public:
  ElasticPool(size_t core, size_t max, std::chrono::milliseconds linger);
  // Shuts down (runs what is queued, then waits for every thread).
  ~ElasticPool() override;

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  // Starts a thread; mutex_ held.
  void Spawn(bool core);
  void Work(size_t id, bool core);
  // Joins the threads that ended; mutex_ held (they hold it no more).
  void JoinEnded();

  const size_t core_;
  const size_t max_;
  const std::chrono::milliseconds linger_;
  std::mutex mutex_;
  std::condition_variable work_;  // A job queued, or shutting down.
  std::deque<std::function<void()>> jobs_;
  std::map<size_t, std::thread> threads_;  // Running, by id.
  std::vector<std::thread> ended_;         // Returned from Work, to join.
  size_t next_id_ = 0;
  size_t idle_ = 0;
  bool shutdown_ = false;
};

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_ELASTIC_POOL_H_
