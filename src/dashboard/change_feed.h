// Hands what changed in the database to the pages' event streams: a
// publisher appends messages; each stream waits for the ones after the last
// it sent. A stream that falls more than the kept messages behind gets the
// newest only (a page refetches what it shows anyway). Used by
// DashboardServer; its waits are timed on the Env's monotonic clock.
// Thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_CHANGE_FEED_H_
#define HPTUNE_SRC_DASHBOARD_CHANGE_FEED_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"

namespace hptune::dashboard {

class ChangeFeed {
 public:
  // `env` must outlive the feed.
  ChangeFeed(int max_streams, Env& env)
      : max_streams_(max_streams), env_(env) {}

  void Publish(std::string message);
  // The sequence number a new stream starts after (it sees later messages).
  uint64_t Head() const;
  // Waits until a message after `*seen` exists, the feed is closed, or
  // `timeout` passes; appends the messages to `out` and advances `*seen`.
  // False once the feed is closed.
  bool Wait(uint64_t* seen, std::chrono::milliseconds timeout,
            std::vector<std::string>* out);
  // Wakes every stream for good.
  void Close();

  // Admission of a stream: false when max_streams are open.
  bool OpenStream();
  void CloseStream();

 private:
  static constexpr size_t kKept = 64;
  const int max_streams_;
  Env& env_;
  mutable Mutex mu_;
  CondVar changed_;
  // The last kKept; the last is seq_.
  std::deque<std::string> messages_ ABSL_GUARDED_BY(mu_);
  uint64_t seq_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int streams_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_CHANGE_FEED_H_
