// The database's changes as the dashboard follows them: a thread reads the
// store's event log every poll interval into the study cache and the trial
// events, and publishes what changed to the pages' event streams (GET
// /api/events, server-sent events). Routes call Refresh too, so an answer
// is as new as its request. Used by DashboardServer and its routes
// (study_routes.h, trial_routes.h).
//
// Thread-safety: Refresh, Snapshot, cache and events may be called from any
// thread; Start and Stop from the thread that owns the ChangeStream.
#ifndef HPTUNE_SRC_DASHBOARD_CHANGE_STREAM_H_
#define HPTUNE_SRC_DASHBOARD_CHANGE_STREAM_H_

#include <httplib.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"
#include "hptune/env/env.h"
#include "hptune/store/store.h"
#include "src/dashboard/change_feed.h"
#include "src/dashboard/http_api.h"
#include "src/dashboard/study_cache.h"
#include "src/dashboard/trial_events.h"

namespace hptune::dashboard {

class ChangeStream {
 public:
  // `store` and `env` (whose monotonic clock times the polls) must outlive
  // this.
  ChangeStream(store::Store& store, std::unique_ptr<StudyCache> cache,
               std::chrono::milliseconds poll_interval, int max_streams,
               Env& env);
  ~ChangeStream();  // Stops.

  // Starts the threads that read every study into the cache once and that
  // follow the event log.
  void Start();
  // Ends every event stream and the thread.
  void Stop();

  // GET /api/events.
  void AddRoutes(ApiRoutes& routes);

  // Reads new events into the cache and tells the streams what changed.
  absl::StatusOr<Changes> Refresh();
  // The study as of now: Refresh, then the cache's.
  absl::StatusOr<std::shared_ptr<const StudySnapshot>> Snapshot(
      const std::string& study);
  StudyCache& cache() { return *cache_; }
  const TrialEvents& events() const { return events_; }

 private:
  // The answer to GET /api/events: a message per change until the client
  // goes or the stream stops; a comment line every 15 s keeps it open.
  void Stream(httplib::Response& res);
  void Poll();

  store::Store& store_;
  std::unique_ptr<StudyCache> cache_;
  const std::chrono::milliseconds poll_interval_;
  Env& env_;
  TrialEvents events_;
  ChangeFeed feed_;
  std::thread poller_;
  std::thread warm_up_;  // Reads every study once, at Start.
  Mutex stop_mu_;
  CondVar stop_cv_;
  bool stopping_ ABSL_GUARDED_BY(stop_mu_) = false;
};

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_CHANGE_STREAM_H_
