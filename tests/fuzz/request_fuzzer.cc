// Fuzz target for the gRPC request handlers: every StudyService rpc and the
// conversion of a SubmitJob request, called as the server calls them, with
// requests decoded from fuzzer bytes.
//
// The first byte picks the rpc, the rest is the request's wire encoding
// (bytes that do not decode are what gRPC itself would refuse before any
// handler runs). A study "fuzz" with one parameter of each type and a few
// trials exists, so trial ids and names hit real objects. Beyond "no crash,
// no sanitizer report", every reply must be a deliberate status: a bad
// request is INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION and so on,
// never UNKNOWN or INTERNAL, and it carries a message.
#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "hptune/engine/engine.h"
#include "hptune/read/study_answers.h"
#include "hptune/v1/job_service.pb.h"
#include "hptune/v1/study_service.pb.h"
#include "src/api/conversion.h"
#include "src/server/auth.h"
#include "src/server/job_access.h"
#include "src/server/server.h"
#include "src/server/study_service.h"
#include "src/store/memory_store.h"

namespace {

using hptune::server::StudyService;

// A fresh world every so many inputs keeps memory bounded (studies and
// trials the inputs create accumulate otherwise).
constexpr int kInputsPerWorld = 512;

struct World {
  World()
      : engine(store, hptune::SystemClock()),
        answers(store),
        auth("", hptune::DefaultEnv()),
        access(store, {}, hptune::DefaultEnv()),
        service(engine, answers, auth, access,
                hptune::server::kDefaultTrialLeaseSeconds) {
    hptune::v1::CreateStudyRequest create;
    create.set_name("fuzz");
    hptune::v1::StudySpec& spec = *create.mutable_spec();
    spec.set_max_trials(50);
    spec.set_max_parallel_trials(5);
    spec.set_hyperparameter_metric_tag("loss");
    auto* lr = spec.add_params();
    lr->set_parameter_name("lr");
    lr->set_type(hptune::v1::ParameterSpec::DOUBLE);
    lr->set_min_value(1e-4);
    lr->set_max_value(1);
    lr->set_scale_type(hptune::v1::ParameterSpec::UNIT_LOG_SCALE);
    auto* layers = spec.add_params();
    layers->set_parameter_name("layers");
    layers->set_type(hptune::v1::ParameterSpec::INTEGER);
    layers->set_min_value(1);
    layers->set_max_value(8);
    auto* opt = spec.add_params();
    opt->set_parameter_name("optimizer");
    opt->set_type(hptune::v1::ParameterSpec::CATEGORICAL);
    opt->add_categorical_values("sgd");
    opt->add_categorical_values("adam");
    grpc::ServerContext context;
    hptune::v1::Study study;
    Expect(service.CreateStudy(&context, &create, &study), "seed study");
    hptune::v1::SuggestTrialsRequest suggest;
    suggest.set_study("fuzz");
    suggest.set_suggestion_count(3);
    suggest.set_client_id("seed");
    hptune::v1::SuggestTrialsResponse trials;
    grpc::ServerContext context2;
    Expect(service.SuggestTrials(&context2, &suggest, &trials), "seed trials");
  }

  static void Expect(const grpc::Status& s, const char* what) {
    if (!s.ok()) {
      std::cerr << "request_fuzzer: setting up " << what
                << " failed: " << s.error_message() << "\n";
      std::abort();
    }
  }

  hptune::store::MemoryStore store{hptune::SystemClock()};
  hptune::engine::TuningEngine engine;
  hptune::read::StoreStudyAnswers answers;
  hptune::server::TokenAuthenticator auth;
  hptune::server::JobAccess access;
  StudyService service;
};

void CheckReply(const grpc::Status& status, const char* rpc,
                const google::protobuf::Message& request) {
  if (status.ok()) return;
  const bool deliberate = status.error_code() != grpc::StatusCode::UNKNOWN &&
                          status.error_code() != grpc::StatusCode::INTERNAL;
  if (deliberate && !status.error_message().empty()) return;
  std::cerr << "request_fuzzer: " << rpc << " answered code "
            << status.error_code() << " \"" << status.error_message()
            << "\" to:\n"
            << request.DebugString() << "\n";
  std::abort();
}

// Decodes `bytes` as Request and calls `handler` with it.
template <typename Request, typename Reply, typename Handler>
void Call(const char* rpc, const uint8_t* bytes, size_t size, Handler handler) {
  Request request;
  if (!request.ParseFromArray(bytes, static_cast<int>(size))) return;
  grpc::ServerContext context;
  Reply reply;
  CheckReply(handler(&context, &request, &reply), rpc, request);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::unique_ptr<World> world;
  static int inputs = 0;
  if (world == nullptr || ++inputs % kInputsPerWorld == 0) {
    world = std::make_unique<World>();
  }
  if (size == 0) return 0;
  StudyService& s = world->service;
  const uint8_t* body = data + 1;
  const size_t n = size - 1;
  namespace v1 = hptune::v1;
  using google::protobuf::Empty;
  switch (data[0] % 16) {
    case 0:
      Call<v1::CreateStudyRequest, v1::Study>(
          "CreateStudy", body, n,
          [&](auto* c, auto* q, auto* r) { return s.CreateStudy(c, q, r); });
      break;
    case 1:
      Call<v1::GetStudyRequest, v1::Study>(
          "GetStudy", body, n,
          [&](auto* c, auto* q, auto* r) { return s.HandleGetStudy(c, q, r); });
      break;
    case 2:
      Call<v1::ListStudiesRequest, v1::ListStudiesResponse>(
          "ListStudies", body, n,
          [&](auto* c, auto* q, auto* r) { return s.ListStudies(c, q, r); });
      break;
    case 3:
      Call<v1::DeleteStudyRequest, Empty>(
          "DeleteStudy", body, n,
          [&](auto* c, auto* q, auto* r) { return s.DeleteStudy(c, q, r); });
      break;
    case 4:
      Call<v1::SuggestTrialsRequest, v1::SuggestTrialsResponse>(
          "SuggestTrials", body, n,
          [&](auto* c, auto* q, auto* r) { return s.SuggestTrials(c, q, r); });
      break;
    case 5:
      Call<v1::CreateTrialRequest, v1::Trial>(
          "CreateTrial", body, n,
          [&](auto* c, auto* q, auto* r) { return s.CreateTrial(c, q, r); });
      break;
    case 6:
      Call<v1::GetTrialRequest, v1::Trial>(
          "GetTrial", body, n,
          [&](auto* c, auto* q, auto* r) { return s.HandleGetTrial(c, q, r); });
      break;
    case 7:
      Call<v1::ListTrialsRequest, v1::ListTrialsResponse>(
          "ListTrials", body, n,
          [&](auto* c, auto* q, auto* r) { return s.ListTrials(c, q, r); });
      break;
    case 8:
      Call<v1::AddMeasurementRequest, v1::AddMeasurementResponse>(
          "AddMeasurement", body, n, [&](auto* c, auto* q, auto* r) {
            return s.HandleAddMeasurement(c, q, r);
          });
      break;
    case 9:
      Call<v1::CompleteTrialRequest, v1::Trial>(
          "CompleteTrial", body, n,
          [&](auto* c, auto* q, auto* r) { return s.CompleteTrial(c, q, r); });
      break;
    case 10:
      Call<v1::CheckEarlyStoppingRequest, v1::CheckEarlyStoppingResponse>(
          "CheckEarlyStopping", body, n, [&](auto* c, auto* q, auto* r) {
            return s.HandleCheckEarlyStopping(c, q, r);
          });
      break;
    case 11:
      Call<v1::StopTrialRequest, v1::Trial>(
          "StopTrial", body, n,
          [&](auto* c, auto* q, auto* r) { return s.StopTrial(c, q, r); });
      break;
    case 12:
      Call<v1::ListOptimalTrialsRequest, v1::ListOptimalTrialsResponse>(
          "ListOptimalTrials", body, n, [&](auto* c, auto* q, auto* r) {
            return s.ListOptimalTrials(c, q, r);
          });
      break;
    case 15:
      Call<v1::AddTrialParameterRequest, v1::Trial>(
          "AddTrialParameter", body, n, [&](auto* c, auto* q, auto* r) {
            return s.AddTrialParameter(c, q, r);
          });
      break;
    default: {
      // SubmitJob's validation: what the server does before a job exists.
      v1::SubmitJobRequest request;
      if (!request.ParseFromArray(body, static_cast<int>(n))) break;
      auto job = hptune::api::JobSpecFromProto(request.training_input(),
                                               request.job_id());
      if (!job.ok() && job.status().message().empty()) {
        std::cerr << "request_fuzzer: SubmitJob refused without a message\n";
        std::abort();
      }
      break;
    }
  }
  return 0;
}
