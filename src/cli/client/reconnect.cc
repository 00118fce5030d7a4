#include "src/cli/client/reconnect.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/api/grpc_status.h"
#include "src/cli/client/rpc_errors.h"

namespace hptune::cli::client {
namespace {

constexpr std::chrono::milliseconds kFirstRetryDelay{250};
constexpr std::chrono::milliseconds kLongestRetryDelay{5000};

// What a lost connection or a server going away looks like to a call.
bool ServerWentAway(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::CANCELLED;
}

}  // namespace

Reconnector::Reconnector(const ServerConnection& server,
                         std::chrono::seconds window, std::ostream& notices,
                         std::string what)
    : server_(server),
      window_(window),
      notices_(notices),
      what_(std::move(what)),
      delay_(kFirstRetryDelay) {}

void Reconnector::Answered() {
  answered_ = true;
  if (!lost_) return;
  lost_ = false;
  delay_ = kFirstRetryDelay;
  notices_ << "hptune: reconnected to " << server_.options.address
           << "; following " << what_ << " again\n";
}

bool Reconnector::Retry(grpc::Status& status) {
  if (!answered_ || !ServerWentAway(status) || window_.count() == 0) {
    return false;
  }
  const std::string why = absl::StrCat(api::GrpcCodeName(status.error_code()),
                                       ": ", status.error_message());
  const MonotonicTime now = server_.options.env->MonotonicNow();
  if (!lost_) {
    lost_ = true;
    lost_since_ = now;
    notices_ << "hptune: lost the server at " << server_.options.address
             << " while following " << what_ << " (" << why
             << "); reconnecting for up to " << window_.count() << " s\n";
  } else if (now - lost_since_ >= window_) {
    status = grpc::Status(
        grpc::StatusCode::UNAVAILABLE,
        absl::StrCat("lost the server at ", server_.options.address,
                     " while following ", what_,
                     ", and no server answered within ", window_.count(),
                     " s (--reconnect-seconds); last error: ", why));
    return false;
  }
  server_.options.env->SleepFor(delay_);
  delay_ = std::min(2 * delay_, kLongestRetryDelay);
  // Whoever listens now gets the token with the call: during a restart it
  // may be another user's process.
  if (absl::Status peer = CheckServer(server_.options); !peer.ok()) {
    status = grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          std::string(peer.message()));
    return false;
  }
  return true;
}

grpc::Status CallWithReconnects(Reconnector& reconnector,
                                const std::function<grpc::Status()>& call) {
  for (;;) {
    grpc::Status status = call();
    if (status.ok()) {
      reconnector.Answered();
      return status;
    }
    if (!reconnector.Retry(status)) return status;
  }
}

}  // namespace hptune::cli::client
