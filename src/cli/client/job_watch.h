// Follows a job on an hptune server through JobService.WatchJob until it
// ends, across restarts of the server. Used by `hptune jobs submit --wait`,
// `jobs cancel --wait` and `jobs watch` (src/cli/commands/jobs).
//
// A watch starts from the job as it is now: the watcher reports the job's
// state, then reads the trials so far with GetJob and reports each, timed by
// its last change, then the changes as they come. A lost watch is opened
// again (reconnect.h) and catches up the same way, the missed trials before
// the job's state (it may have ended meanwhile). Each (trial, state) and
// each job state is reported once, however the streams overlap.
// Not thread-safe.
#ifndef HPTUNE_CLI_CLIENT_JOB_WATCH_H_
#define HPTUNE_CLI_CLIENT_JOB_WATCH_H_

#include <chrono>
#include <functional>
#include <ostream>
#include <string>

#include "grpcpp/grpcpp.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "src/cli/client/connection.h"
#include "src/cli/client/reconnect.h"

namespace hptune::cli::client {

struct JobWatch {
  const ServerConnection& server;
  v1::JobService::Stub& stub;
  std::string job_id;
  // Zero: a lost watch is an error at once.
  std::chrono::seconds reconnect_window = kDefaultReconnectWindow;
  // Each change, once: job events (state changes) and trial events.
  std::function<void(const v1::JobEvent&)> on_event;
  // Reconnector's notices.
  std::ostream& notices;
};

// SUCCEEDED, FAILED or CANCELLED: the job will not change again.
bool IsTerminal(v1::Job::State state);

// Returns when the job has ended (OK, `final_state` its state) or the watch
// failed; UNAVAILABLE when the stream ended before the job and could not be
// opened again within the window.
grpc::Status FollowJob(const JobWatch& watch, v1::Job::State& final_state);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_JOB_WATCH_H_
