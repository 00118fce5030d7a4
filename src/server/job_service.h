// JobService: AI Platform-like training jobs (proto/hptune/v1/
// job_service.proto), run by the server's JobManager.
//
// Created by the server's start-up. SubmitJob validates with core's config
// parser (src/api/conversion.h) and hands the job to the JobManager; GetJob and
// ListJobs read the store; WatchJob and StreamTrialLogs are server streams
// that poll the store and the log files, waking early on the JobManager's
// change notifications, and end when the client cancels or its deadline
// passes. A SubmitJob that names a backend must name this server's (the
// server runs every job on the one launcher it was started with), and its
// trainer must be one the server's CommandPolicy allows.
// On a server shared by several users (auth.h), a job is its submitter's: a
// root server runs its replicas as that user, and only that user and the
// server's administrator may see, watch, stream, relabel, cancel or delete
// it (job_access.h).
// Thread-safe: handlers run on the sync server's threads.
#ifndef HPTUNE_SRC_SERVER_JOB_SERVICE_H_
#define HPTUNE_SRC_SERVER_JOB_SERVICE_H_

#include <string>
#include <utility>

#include "hptune/env/env.h"
#include "hptune/store/store.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "src/jobs/job_manager.h"
#include "src/server/auth.h"
#include "src/server/command_policy.h"
#include "src/server/job_access.h"
#include "src/server/user_quotas.h"

namespace hptune::server {

class JobService final : public v1::JobService::Service {
 public:
  // `backend`: where this server runs trials, "local" or "slurm";
  // `policy`: which programs submitted jobs may run; `env`: logs are read,
  // and streams wait, through it.
  JobService(store::Store& store, jobs::JobManager& jobs,
             const TokenAuthenticator& auth, std::string backend,
             CommandPolicy policy, const JobAccess& access, UserQuotas& quotas,
             Env& env)
      : env_(env),
        store_(store),
        jobs_(jobs),
        auth_(auth),
        backend_(std::move(backend)),
        policy_(std::move(policy)),
        access_(access),
        quotas_(quotas) {}

  grpc::Status SubmitJob(grpc::ServerContext* context,
                         const v1::SubmitJobRequest* request,
                         v1::Job* reply) override;
  const CommandPolicy& policy() const { return policy_; }
  grpc::Status GetJob(grpc::ServerContext* context,
                      const v1::GetJobRequest* request,
                      v1::Job* reply) override;
  grpc::Status ListJobs(grpc::ServerContext* context,
                        const v1::ListJobsRequest* request,
                        v1::ListJobsResponse* reply) override;
  grpc::Status CancelJob(grpc::ServerContext* context,
                         const v1::CancelJobRequest* request,
                         v1::Job* reply) override;
  grpc::Status DeleteJob(grpc::ServerContext* context,
                         const v1::DeleteJobRequest* request,
                         google::protobuf::Empty* reply) override;
  grpc::Status UpdateJob(grpc::ServerContext* context,
                         const v1::UpdateJobRequest* request,
                         v1::Job* reply) override;
  grpc::Status WatchJob(grpc::ServerContext* context,
                        const v1::WatchJobRequest* request,
                        grpc::ServerWriter<v1::JobEvent>* writer) override;
  grpc::Status GetTrialLogs(grpc::ServerContext* context,
                            const v1::GetTrialLogsRequest* request,
                            v1::LogChunk* reply) override;
  grpc::Status StreamTrialLogs(
      grpc::ServerContext* context, const v1::GetTrialLogsRequest* request,
      grpc::ServerWriter<v1::LogChunk>* writer) override;

 private:
  // OK when a job asking for backend `asked` ("" for any) may run here.
  [[nodiscard]] absl::Status CheckBackend(const std::string& asked) const;
  // The server's rules and, on the local backend, that the trainer exists:
  // judged with the file rights of the user its replicas will run as.
  [[nodiscard]] absl::Status CheckTrainerAs(const JobSpec& spec,
                                            const JobOwner& owner) const;
  // The job as a message, with its study's trials when `with_trials`.
  absl::StatusOr<v1::Job> DescribeJob(const JobRecord& job, bool with_trials);

  Env& env_;
  store::Store& store_;
  jobs::JobManager& jobs_;
  const TokenAuthenticator& auth_;
  const std::string backend_;
  const CommandPolicy policy_;
  const JobAccess& access_;
  UserQuotas& quotas_;  // A job's study counts against its submitter.
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_JOB_SERVICE_H_
