// StudyService: the Vizier-like ask/tell API (proto/hptune/v1/
// study_service.proto) over hptune's TuningEngine.
//
// Created by the server's start-up; each handler authenticates, checks the
// caller may use the study (job_access.h), checks the request's sizes, converts
// it (src/api/conversion.h), calls the engine and converts the reply. The
// answers about a study (optimal trials, importance, what early stopping
// saved) come from the read side it is given (hptune/read/). Every
// engine call that changes state is one store transaction, so a reply of OK
// means the change is durable. Thread-safe: gRPC calls handlers from many
// threads; the engine serialises what must be.
#ifndef HPTUNE_SRC_SERVER_STUDY_SERVICE_H_
#define HPTUNE_SRC_SERVER_STUDY_SERVICE_H_

#include "hptune/algorithms/stopping_policy.h"
#include "hptune/engine/engine.h"
#include "hptune/read/study_answers.h"
#include "hptune/store/store.h"
#include "hptune/v1/study_service.grpc.pb.h"
#include "src/server/auth.h"
#include "src/server/job_access.h"
#include "src/server/user_quotas.h"

namespace hptune::server {

// The hot path of ask/tell clients (a measurement, then the stopping check)
// and the reads that go with it use gRPC's callback API: they run on the
// thread that received the request, without the sync server's hand-off to a
// worker thread, which doubled what those calls sustain
// (throughput_benchmark --baseline: 2,300 -> 4,600 round trips/s). They are
// short store operations. SuggestTrials (a GP fit can take a second) and the
// listings stay on the sync server's thread pool.
using StudyServiceBase = v1::StudyService::WithCallbackMethod_GetStudy<
    v1::StudyService::WithCallbackMethod_GetTrial<
        v1::StudyService::WithCallbackMethod_AddMeasurement<
            v1::StudyService::WithCallbackMethod_CheckEarlyStopping<
                v1::StudyService::Service>>>>;

class StudyService final : public StudyServiceBase {
 public:
  // `answers`: the read side of the engine's store. `quotas`: the per-user
  // limits on new studies; none when null.
  StudyService(engine::TuningEngine& engine, read::StudyAnswers& answers,
               const TokenAuthenticator& auth, const JobAccess& access,
               int trial_lease_seconds, UserQuotas* quotas = nullptr)
      : engine_(engine),
        answers_(answers),
        auth_(auth),
        access_(access),
        trial_lease_seconds_(trial_lease_seconds),
        quotas_(quotas) {}

  grpc::Status CreateStudy(grpc::ServerContext* context,
                           const v1::CreateStudyRequest* request,
                           v1::Study* reply) override;
  grpc::ServerUnaryReactor* GetStudy(grpc::CallbackServerContext* context,
                                     const v1::GetStudyRequest* request,
                                     v1::Study* reply) override;
  // The body of GetStudy, callable without a call in flight.
  grpc::Status HandleGetStudy(const grpc::ServerContextBase* context,
                              const v1::GetStudyRequest* request,
                              v1::Study* reply);
  grpc::Status ListStudies(grpc::ServerContext* context,
                           const v1::ListStudiesRequest* request,
                           v1::ListStudiesResponse* reply) override;
  grpc::Status DeleteStudy(grpc::ServerContext* context,
                           const v1::DeleteStudyRequest* request,
                           google::protobuf::Empty* reply) override;
  grpc::Status SuggestTrials(grpc::ServerContext* context,
                             const v1::SuggestTrialsRequest* request,
                             v1::SuggestTrialsResponse* reply) override;
  grpc::Status RenewTrialLeases(grpc::ServerContext* context,
                                const v1::RenewTrialLeasesRequest* request,
                                v1::RenewTrialLeasesResponse* reply) override;
  grpc::Status CreateTrial(grpc::ServerContext* context,
                           const v1::CreateTrialRequest* request,
                           v1::Trial* reply) override;
  grpc::Status AddTrialParameter(grpc::ServerContext* context,
                                 const v1::AddTrialParameterRequest* request,
                                 v1::Trial* reply) override;
  grpc::ServerUnaryReactor* GetTrial(grpc::CallbackServerContext* context,
                                     const v1::GetTrialRequest* request,
                                     v1::Trial* reply) override;
  // The body of GetTrial, callable without a call in flight.
  grpc::Status HandleGetTrial(const grpc::ServerContextBase* context,
                              const v1::GetTrialRequest* request,
                              v1::Trial* reply);
  grpc::Status ListTrials(grpc::ServerContext* context,
                          const v1::ListTrialsRequest* request,
                          v1::ListTrialsResponse* reply) override;
  grpc::ServerUnaryReactor* AddMeasurement(
      grpc::CallbackServerContext* context,
      const v1::AddMeasurementRequest* request,
      v1::AddMeasurementResponse* reply) override;
  // What AddMeasurement does, waiting for the commit: callable without a
  // call in flight.
  grpc::Status HandleAddMeasurement(const grpc::ServerContextBase* context,
                                    const v1::AddMeasurementRequest* request,
                                    v1::AddMeasurementResponse* reply);
  grpc::Status CompleteTrial(grpc::ServerContext* context,
                             const v1::CompleteTrialRequest* request,
                             v1::Trial* reply) override;
  grpc::ServerUnaryReactor* CheckEarlyStopping(
      grpc::CallbackServerContext* context,
      const v1::CheckEarlyStoppingRequest* request,
      v1::CheckEarlyStoppingResponse* reply) override;
  // The body of CheckEarlyStopping, callable without a call in flight.
  grpc::Status HandleCheckEarlyStopping(
      const grpc::ServerContextBase* context,
      const v1::CheckEarlyStoppingRequest* request,
      v1::CheckEarlyStoppingResponse* reply);
  grpc::Status StopTrial(grpc::ServerContext* context,
                         const v1::StopTrialRequest* request,
                         v1::Trial* reply) override;
  grpc::Status ListOptimalTrials(grpc::ServerContext* context,
                                 const v1::ListOptimalTrialsRequest* request,
                                 v1::ListOptimalTrialsResponse* reply) override;
  // PED-ANOVA over the study's trials: O(trials x parameters), about 10 ms
  // at 10,000 x 20 (benchmarks/RESULTS.md), so it stays on the thread pool.
  grpc::Status GetParameterImportance(
      grpc::ServerContext* context,
      const v1::GetParameterImportanceRequest* request,
      v1::ParameterImportanceResponse* reply) override;
  grpc::Status GetStoppingSavings(grpc::ServerContext* context,
                                  const v1::GetStoppingSavingsRequest* request,
                                  v1::StoppingSavingsResponse* reply) override;

 private:
  engine::TuningEngine& engine_;
  read::StudyAnswers& answers_;
  // OK when the caller may use `study` (JobAccess::CheckStudy).
  [[nodiscard]] absl::Status MayUse(const grpc::ServerContextBase& context,
                                    std::string_view study) const;
  // CompleteTrial's unused_parameters, taken out of the trial first.
  [[nodiscard]] absl::Status LeaveOutUnused(
      const v1::CompleteTrialRequest& request);

  const TokenAuthenticator& auth_;
  const JobAccess& access_;
  // The lease of trials handed to clients (ServerOptions); 0: none.
  const int trial_lease_seconds_;
  UserQuotas* const quotas_;
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_STUDY_SERVICE_H_
