// One REST request's call of hptune's gRPC services: the caller's
// `Authorization` value as the call's metadata (so the server's
// authentication, per-user rules, limits and command policy judge it as
// they judge any gRPC call), a deadline, and the reply or Google's error
// JSON. Shared by the REST gateway's routes (job_routes.h,
// vertex_routes.h). HTTP-free; thread-safe (a stub per call).
#ifndef HPTUNE_SRC_REST_REST_CALL_H_
#define HPTUNE_SRC_REST_REST_CALL_H_

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"

namespace hptune::rest {

struct RestReply {
  int http_status = 200;
  std::string json;
};

// What every method gets from the HTTP request besides its own fields.
struct RestCall {
  std::shared_ptr<grpc::Channel> channel;
  std::string authorization;  // The `Authorization` header, maybe empty.
  // When the request came, on the server's wall clock (RestOptions::now):
  // gRPC's deadlines are on the wall clock.
  std::chrono::system_clock::time_point received;
};

// Google's error JSON with the HTTP code of the gRPC code.
RestReply ReplyOfError(const grpc::Status& status);
// A reply for an error found before any call (a body too large, no route).
RestReply ErrorReply(const absl::Status& status);

// Readies `context` for a call on the caller's behalf: UNAUTHENTICATED for
// an Authorization value gRPC could not carry as metadata.
grpc::Status PrepareContext(const RestCall& call, grpc::ClientContext& context);

// Calls `method` of `Service` (v1::JobService, v1::StudyService) for the
// caller.
template <typename Service, typename Method, typename Request, typename Reply>
grpc::Status CallService(const RestCall& call, Method method,
                         const Request& request, Reply* reply) {
  grpc::ClientContext context;
  if (grpc::Status s = PrepareContext(call, context); !s.ok()) return s;
  auto stub = Service::NewStub(call.channel);
  return ((*stub).*method)(&context, request, reply);
}

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_REST_CALL_H_
