// Rides out a server that goes away while a command follows a job: `jobs
// submit --wait/--stream-logs`, `jobs watch`, `jobs cancel --wait` and
// `jobs stream-logs --follow` (through job_watch.h and
// src/cli/commands/jobs).
//
// A server that restarts (an upgrade, SIGTERM's drain, a crash) resumes its
// jobs, so a long job outlives the calls that followed it. Once the server
// has answered this command, a call that fails because the server went
// away (UNAVAILABLE or CANCELLED) is made again, every 0.25 s to 5 s, until
// the server answers or `window` has passed since the first failure in a
// row, each time after the listener is checked again (CheckServer: a process
// of another user holding the port ends the command, FAILED_PRECONDITION).
// The loss and the reconnection are each said once on `notices`. A
// server that cannot be reached at all at the start is an error at once, as
// is any other failure (NOT_FOUND, UNAUTHENTICATED, ...).
// Not thread-safe.
#ifndef HPTUNE_CLI_CLIENT_RECONNECT_H_
#define HPTUNE_CLI_CLIENT_RECONNECT_H_

#include <chrono>
#include <functional>
#include <ostream>
#include <string>

#include "grpcpp/grpcpp.h"
#include "src/cli/client/connection.h"

namespace hptune::cli::client {

// How long `--reconnect-seconds` waits by default for a lost server.
inline constexpr std::chrono::seconds kDefaultReconnectWindow{300};

class Reconnector {
 public:
  // `what` names what is followed in the notices, e.g. "job mnist_1". A
  // zero window turns reconnection off.
  Reconnector(const ServerConnection& server, std::chrono::seconds window,
              std::ostream& notices, std::string what);

  // The server answered a call; after a loss, says so on `notices`.
  void Answered();
  // Whether the last call failed and no call has been answered since.
  bool lost() const { return lost_; }
  // After a call failed with `status`: true, after a pause, when it should be
  // made again. Otherwise false, with `status` to return: as it was, or,
  // once the window has passed, UNAVAILABLE saying so.
  bool Retry(grpc::Status& status);

 private:
  const ServerConnection& server_;
  std::chrono::seconds window_;
  std::ostream& notices_;
  std::string what_;
  bool answered_ = false;  // The server has answered this command.
  bool lost_ = false;
  MonotonicTime lost_since_;  // On the connection's Env.
  std::chrono::milliseconds delay_;
};

// Makes `call` until it succeeds (Answered) or reconnector.Retry says no.
// A streaming `call` should call Answered itself as data comes, so that a
// stream that made progress before it broke counts as answered.
grpc::Status CallWithReconnects(Reconnector& reconnector,
                                const std::function<grpc::Status()>& call);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_RECONNECT_H_
