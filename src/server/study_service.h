// StudyService: the Vizier-like ask/tell API (proto/hptune/v1/
// study_service.proto) over hptune's TuningEngine.
//
// Created by the server's start-up; each handler authenticates, checks the
// request's sizes, converts it (conversion.h), calls the engine and converts
// the reply. Every engine call that changes state is one store transaction,
// so a reply of OK means the change is durable. Thread-safe: the sync
// server calls handlers from many threads; the engine serialises what must
// be.
#ifndef HPTUNE_SRC_SERVER_STUDY_SERVICE_H_
#define HPTUNE_SRC_SERVER_STUDY_SERVICE_H_

#include "hptune/algorithms/stopping_policy.h"
#include "hptune/engine/engine.h"
#include "hptune/store/store.h"
#include "hptune/v1/study_service.grpc.pb.h"
#include "src/server/auth.h"

namespace hptune::server {

class StudyService final : public v1::StudyService::Service {
 public:
  StudyService(store::Store& store, engine::TuningEngine& engine,
               const TokenAuthenticator& auth,
               algorithms::StoppingRule stopping_rule)
      : store_(store),
        engine_(engine),
        auth_(auth),
        stopping_rule_(stopping_rule) {}

  grpc::Status CreateStudy(grpc::ServerContext* context,
                           const v1::CreateStudyRequest* request,
                           v1::Study* reply) override;
  grpc::Status GetStudy(grpc::ServerContext* context,
                        const v1::GetStudyRequest* request,
                        v1::Study* reply) override;
  grpc::Status ListStudies(grpc::ServerContext* context,
                           const v1::ListStudiesRequest* request,
                           v1::ListStudiesResponse* reply) override;
  grpc::Status DeleteStudy(grpc::ServerContext* context,
                           const v1::DeleteStudyRequest* request,
                           google::protobuf::Empty* reply) override;
  grpc::Status SuggestTrials(grpc::ServerContext* context,
                             const v1::SuggestTrialsRequest* request,
                             v1::SuggestTrialsResponse* reply) override;
  grpc::Status CreateTrial(grpc::ServerContext* context,
                           const v1::CreateTrialRequest* request,
                           v1::Trial* reply) override;
  grpc::Status GetTrial(grpc::ServerContext* context,
                        const v1::GetTrialRequest* request,
                        v1::Trial* reply) override;
  grpc::Status ListTrials(grpc::ServerContext* context,
                          const v1::ListTrialsRequest* request,
                          v1::ListTrialsResponse* reply) override;
  grpc::Status AddMeasurement(grpc::ServerContext* context,
                              const v1::AddMeasurementRequest* request,
                              v1::AddMeasurementResponse* reply) override;
  grpc::Status CompleteTrial(grpc::ServerContext* context,
                             const v1::CompleteTrialRequest* request,
                             v1::Trial* reply) override;
  grpc::Status CheckEarlyStopping(
      grpc::ServerContext* context,
      const v1::CheckEarlyStoppingRequest* request,
      v1::CheckEarlyStoppingResponse* reply) override;
  grpc::Status StopTrial(grpc::ServerContext* context,
                         const v1::StopTrialRequest* request,
                         v1::Trial* reply) override;
  grpc::Status ListOptimalTrials(grpc::ServerContext* context,
                                 const v1::ListOptimalTrialsRequest* request,
                                 v1::ListOptimalTrialsResponse* reply) override;

 private:
  store::Store& store_;
  engine::TuningEngine& engine_;
  const TokenAuthenticator& auth_;
  const algorithms::StoppingRule stopping_rule_;
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_STUDY_SERVICE_H_
