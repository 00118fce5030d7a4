// The frame of every service handler: authenticate, run the body, map its
// absl::Status to a grpc::Status, and have the memory it freed returned
// (memory_release.h). Internal to src/server; thread-safe.
#ifndef HPTUNE_SRC_SERVER_CALL_H_
#define HPTUNE_SRC_SERVER_CALL_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include <utility>

#include "absl/status/status.h"
#include "src/api/grpc_status.h"
#include "src/server/auth.h"
#include "src/server/memory_release.h"

namespace hptune::server {

template <typename Body>
grpc::Status Serve(const TokenAuthenticator& auth,
                   const grpc::ServerContextBase* context, Body&& body) {
  // However it ends: the trim runs a moment later, when the request and
  // the response are freed too.
  struct ReleaseAtEnd {
    ~ReleaseAtEnd() { ReleaseFreeMemorySoon(); }
  } release;
  grpc::Status allowed = auth.Check(*context);
  if (!allowed.ok()) return allowed;
  return api::ToGrpcStatus(std::forward<Body>(body)());
}

// Ends a callback-API call with `status`. Such a handler runs on the gRPC
// thread that received the request (no hand-off to a worker thread), so its
// body must be short.
inline grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* context,
                                           const grpc::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_CALL_H_
