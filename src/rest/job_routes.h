// AI Platform Training v1's projects.jobs methods (create, get, list,
// cancel, patch) as calls to hptune's gRPC JobService: each reads its
// request, calls the service for the caller (rest_call.h), and answers
// with the reply as AI Platform's JSON (the v1 messages' JSON
// names are AI Platform's) or Google's error JSON. HTTP-free, so a test
// can call them on any channel. Used by RestGateway. Thread-safe (a stub
// per call).
#ifndef HPTUNE_SRC_REST_JOB_ROUTES_H_
#define HPTUNE_SRC_REST_JOB_ROUTES_H_

#include <string_view>

#include "src/rest/rest_call.h"

namespace hptune::rest {

RestReply CreateJob(const RestCall& call, std::string_view body);
RestReply GetJob(const RestCall& call, std::string_view job_id);
// `page_size` and `page_token` as the query gives them (empty: absent).
RestReply ListJobs(const RestCall& call, std::string_view filter,
                   std::string_view page_size, std::string_view page_token);
RestReply CancelJob(const RestCall& call, std::string_view job_id);
RestReply PatchJob(const RestCall& call, std::string_view job_id,
                   std::string_view body, std::string_view update_mask);

}  // namespace hptune::rest

#endif  // HPTUNE_SRC_REST_JOB_ROUTES_H_
