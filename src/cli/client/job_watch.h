// Follows a job on an hptune server through JobService.WatchJob until it
// ends, across restarts of the server. Used by `hptune jobs submit --wait`,
// `jobs cancel --wait` and `jobs watch` (src/cli/jobs_command.cc).
//
// A server that restarts (an upgrade, SIGTERM's drain, a crash) resumes its
// jobs, so a long job outlives the stream that watched it. When an
// established watch is lost (UNAVAILABLE or CANCELLED, or the stream ending
// before the job did), the watcher says so once on `notices`, then opens a
// new watch every 0.25 s to 5 s until one answers or `reconnect_window` has
// passed. A new watch starts from the job as it is now, so the watcher
// catches up with GetJob, reporting each trial whose state changed while it
// was away, before the job's own state. Each (trial, state) and each job
// state is reported once, however the streams overlap. A server that cannot
// be reached at all at the start is an error at once, as is any other
// failure (NOT_FOUND, UNAUTHENTICATED, ...).
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

namespace hptune::cli::client {

// How long `--reconnect-seconds` waits by default for a lost server.
inline constexpr std::chrono::seconds kDefaultReconnectWindow{300};

struct JobWatch {
  const ServerConnection& server;
  v1::JobService::Stub& stub;
  std::string job_id;
  // Zero: a lost watch is an error at once.
  std::chrono::seconds reconnect_window = kDefaultReconnectWindow;
  // Each change, once: job events (state changes) and trial events.
  std::function<void(const v1::JobEvent&)> on_event;
  // "hptune: lost ..." and "hptune: reconnected ..." lines.
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
