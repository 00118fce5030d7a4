// AI Platform Training v1's projects.jobs methods (create, get, list,
// cancel, patch) as calls to hptune's gRPC JobService: each reads its
// request, calls the service with the caller's `Authorization` value as
// the call's metadata (so the server's authentication, per-user rules,
// limits and command policy judge it as they judge any gRPC call), and
// answers with the reply as AI Platform's JSON (the v1 messages' JSON
// names are AI Platform's) or Google's error JSON. HTTP-free, so a test
// can call them on any channel. Used by RestGateway. Thread-safe (a stub
// per call).
#ifndef HPTUNE_SRC_REST_JOB_ROUTES_H_
#define HPTUNE_SRC_REST_JOB_ROUTES_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "grpcpp/channel.h"

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

RestReply CreateJob(const RestCall& call, std::string_view body);
RestReply GetJob(const RestCall& call, std::string_view job_id);
// `page_size` and `page_token` as the query gives them (empty: absent).
RestReply ListJobs(const RestCall& call, std::string_view filter,
                   std::string_view page_size, std::string_view page_token);
RestReply CancelJob(const RestCall& call, std::string_view job_id);
RestReply PatchJob(const RestCall& call, std::string_view job_id,
                   std::string_view body, std::string_view update_mask);

// A reply for an error found before any call (a body too large, no route).
RestReply ErrorReply(const absl::Status& status);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_JOB_ROUTES_H_
