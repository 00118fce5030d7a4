#include "src/server/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include <filesystem>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "hptune/core/check.h"
#include "hptune/core/status.h"
#include "hptune/engine/engine.h"
#include "hptune/env/env.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/read/cached_study_answers.h"
#include "hptune/runner/job_runner.h"
#include "hptune/runner/trial_admission.h"
#include "hptune/store/open_store.h"
#include "src/jobs/draining_launcher.h"
#include "src/jobs/job_manager.h"
#include "src/server/auth.h"
#include "src/server/identity_socket.h"
#include "src/server/job_access.h"
#include "src/server/job_service.h"
#include "src/server/listen_policy.h"
#include "src/server/memory_release.h"
#include "src/server/study_service.h"

namespace hptune::server {
namespace {

// Idle handler threads kept for the next calls.
constexpr int kIdleHandlerThreads = 32;

}  // namespace

class HptuneServer::Impl {
 public:
  explicit Impl(ServerOptions options)
      : options_(std::move(options)), auth_(options_.token, *options_.env) {}

  absl::Status Start() {
    // Debian builds Abseil without NDEBUG, so every absl::Mutex that gRPC
    // takes also updates a global lock-order graph: about a fifth of the
    // server's CPU on the hot path. Lock order is checked by the sanitizer
    // builds and the tests, not in production.
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
    HPTUNE_RETURN_IF_ERROR(PrepareAccess());
    HPTUNE_RETURN_IF_ERROR(OpenDatabase());
    HPTUNE_RETURN_IF_ERROR(BuildServices());
    HPTUNE_RETURN_IF_ERROR(Listen());
    HPTUNE_RETURN_IF_ERROR(ServeSocket());
    // Resumed after the port is bound, so a second server on a busy port
    // never touches the first one's jobs.
    // The rules hold for the jobs already in the database as for new ones,
    // whose owner a crafted or older database may leave unknown (root).
    jobs_->ResumeUnfinished(Admission());
    return absl::OkStatus();
  }

  // The rules a stored job must meet to be resumed here.
  jobs::JobManager::Admission Admission() {
    return [this](const JobRecord& record, const JobSpec& job) {
      HPTUNE_RETURN_IF_ERROR(access_->MayResume(record));
      return job_service_->policy().Check(job);
    };
  }

  int port() const { return port_; }

  // Who may call: the token, the users file, and the state directory their
  // trials write to.
  absl::Status PrepareAccess() {
    if (options_.token.empty() && !options_.allow_unauthenticated) {
      return absl::FailedPreconditionError(
          "no token: a server runs programs for whoever submits a job, so "
          "every call must be authenticated (give a token)");
    }
    // What replicas leave there (logs, metric files, cgroup records) is
    // trusted: no other user may plant links or files in it.
    HPTUNE_RETURN_IF_ERROR(CheckPrivateDirectory(options_.state_dir));
    if (!options_.users_file.empty()) {
      HPTUNE_RETURN_IF_ERROR(
          auth_.LoadUsersFile(options_.users_file, *options_.env));
    }
    // A root server that serves other users runs their trials in their
    // directories under the state directory: they may pass through it,
    // though not list or change it.
    if (options_.env->EffectiveUserId() == 0 &&
        !(options_.socket_path.empty() && options_.users_file.empty())) {
      options_.env->SetPermissions(options_.state_dir, 0711).IgnoreError();
    }
    return absl::OkStatus();
  }

  // The engine, the launcher, the job manager and the services on the
  // store.
  absl::Status BuildServices() {
    quotas_ = std::make_unique<UserQuotas>(
        *store_, options_.quotas,
        static_cast<int64_t>(options_.env->EffectiveUserId()));
    engine_ = std::make_unique<engine::TuningEngine>(
        *store_,
        engine::EngineOptions{
            .background_designer_work = !options_.inline_refits,
            .admit_measurement = QuotaCheck(),
            .env = options_.env},
        options_.env->clock());
    if (options_.launcher == nullptr) {
      options_.launcher =
          std::make_unique<launch::LocalLauncher>(launch::LocalLauncherOptions{
              .env = options_.env,
              .gpus = options_.gpus,
              .reattach_grace = options_.termination_grace});
    }
    launcher_ = std::make_unique<jobs::DrainingLauncher>(*options_.launcher,
                                                         *options_.env);
    runner::JobRunnerOptions runner;
    runner.runs_dir = options_.state_dir;
    runner.gcs_root = options_.gcs_root;
    runner.termination_grace = options_.termination_grace;
    runner.max_replica_restarts = options_.max_replica_restarts;
    runner.max_trial_retries = options_.max_trial_retries;
    runner.max_log_bytes = options_.max_log_bytes;
    admission_ = std::make_unique<runner::TrialAdmission>(
        options_.quotas.max_running_trials_per_user,
        static_cast<int64_t>(options_.env->EffectiveUserId()));
    runner.admission = admission_.get();
    jobs_ = std::make_unique<jobs::JobManager>(*store_, *engine_, *launcher_,
                                               runner, *options_.env,
                                               options_.job_log, lease_.get());
    access_ = std::make_unique<JobAccess>(
        *store_,
        JobAccessRules{.share_jobs = options_.share_jobs,
                       .allow_root_trials = options_.allow_root_trials,
                       .backend = options_.backend_name},
        *options_.env);
    // The answers about studies are kept until a study changes: asking
    // again for a finished study's importance costs a read of the log.
    HPTUNE_ASSIGN_OR_RETURN(
        answers_,
        read::CachedStudyAnswers::Create(
            *store_, std::make_unique<read::StoreStudyAnswers>(*store_)));
    study_service_ = std::make_unique<StudyService>(
        *engine_, *answers_, auth_, *access_, options_.trial_lease_seconds,
        quotas_.get());
    HPTUNE_ASSIGN_OR_RETURN(
        CommandPolicy policy,
        CommandPolicy::Parse(*options_.env, options_.allowed_commands,
                             options_.allowed_env, options_.allowed_images));
    job_service_ = std::make_unique<JobService>(
        *store_, *jobs_, auth_, options_.backend_name, std::move(policy),
        *access_, *quotas_, *options_.env);
    return absl::OkStatus();
  }

  // The engine's check before a measurement is stored: every path to the
  // store (ask/tell calls, jobs' reports) passes it.
  std::function<absl::Status(std::string_view, const Measurement&)>
  QuotaCheck() {
    return [this](std::string_view study, const Measurement& m) {
      return quotas_->AdmitMeasurement(study, m);
    };
  }

  // The gRPC server on the listen address (and the socket), with health
  // checking and, on loopback, reflection.
  absl::Status Listen() {
    grpc::EnableDefaultHealthCheckService(true);
    // Reflection answers without the token (gRPC serves it, not our
    // handlers), so it is served on loopback only. It registers itself with
    // every server built after this call.
    if (IsLoopbackAddress(options_.listen_address)) {
      grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    }
    grpc::ServerBuilder builder;
    std::shared_ptr<grpc::ServerCredentials> credentials;
    if (!options_.tls_cert.empty()) {
      grpc::SslServerCredentialsOptions ssl;
      ssl.pem_key_cert_pairs.push_back({options_.tls_key, options_.tls_cert});
      credentials = grpc::SslServerCredentials(ssl);
    } else {
      credentials = grpc::InsecureServerCredentials();
    }
    builder.AddListeningPort(options_.listen_address, credentials, &port_);
    if (!options_.socket_path.empty()) {
      HPTUNE_RETURN_IF_ERROR(PrepareSocketDirectory());
      builder.AddListeningPort("unix:" + options_.socket_path.string(),
                               grpc::InsecureServerCredentials());
    }
    builder.SetMaxReceiveMessageSize(options_.max_request_bytes);
    // gRPC sets SO_REUSEPORT by default: a second server on the same port
    // would start, share the port and resume the first one's jobs.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    // The bandwidth-delay probe pings every connection to size its flow
    // control window, which pays off for large messages over long links;
    // this API's messages are small, and on the hot path (a measurement,
    // then a stopping check) the pings and channelz's per-call counters
    // cost a tenth of gRPC's work (throughput_benchmark --baseline, clients
    // with gRPC's defaults: 6,300 -> 7,200 round trips/s).
    builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    builder.AddChannelArgument(GRPC_ARG_ENABLE_CHANNELZ, 0);
    // gRPC's sync server ends a handler thread once more than MAX_POLLERS
    // (2 by default) are idle and starts another for the next call: under
    // 32 concurrent clients, a thread created and destroyed per call.
    builder.SetSyncServerOption(
        grpc::ServerBuilder::SyncServerOption::MAX_POLLERS,
        kIdleHandlerThreads);
    builder.RegisterService(study_service_.get());
    builder.RegisterService(job_service_.get());
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || port_ == 0) {
      return absl::UnavailableError(absl::StrCat(
          "cannot listen on \"", options_.listen_address,
          "\" (address in use, or not an address of this machine)"));
    }
    return absl::OkStatus();
  }

  // The socket's directory, made if missing (mode 0755: other users must
  // reach the socket), and one no other user can change: the server
  // creates and opens its socket files there by name.
  absl::Status PrepareSocketDirectory() {
    std::filesystem::path dir = options_.socket_path.parent_path();
    if (dir.empty()) dir = ".";
    if (!options_.env->Exists(dir)) {
      HPTUNE_RETURN_IF_ERROR(CreatePrivateDirectories(dir));
      options_.env->SetPermissions(dir, 0755).IgnoreError();
    }
    return CheckPrivateDirectory(dir);
  }

  // Every local user may connect to the socket (the token decides what a
  // call may do), and learns their token beside it.
  absl::Status ServeSocket() {
    if (options_.socket_path.empty()) return absl::OkStatus();
    if (absl::Status opened =
            options_.env->SetPermissions(options_.socket_path, 0666);
        !opened.ok()) {
      return absl::UnavailableError(absl::StrCat(
          "cannot open the socket to other users: ", opened.message()));
    }
    HPTUNE_ASSIGN_OR_RETURN(
        identity_,
        IdentitySocket::Start(IdentitySocketPath(options_.socket_path), auth_,
                              *options_.env));
    return absl::OkStatus();
  }

  // The store named by the path or URL, or the one handed over, with its
  // runner lease: no `hptune run` beside it, since both would resume the
  // same jobs, and other servers only where the store shares jobs between
  // them (Store::AcquireRunnerLease, RunnerLease::HoldJob).
  absl::Status OpenDatabase() {
    store_ = std::move(options_.store);
    lease_ = std::move(options_.runner_lease);
    if (store_ == nullptr) {
      HPTUNE_ASSIGN_OR_RETURN(
          store_, store::OpenStore(options_.db_path, options_.env->clock(),
                                   {.env = options_.env}));
    }
    if (lease_ != nullptr) return absl::OkStatus();
    HPTUNE_ASSIGN_OR_RETURN(
        lease_,
        store_->AcquireRunnerLease(store::RunnerHolder::kSharedServer, ""));
    return absl::OkStatus();
  }

  void Drain(std::chrono::milliseconds deadline) {
    server_->Shutdown(
        std::chrono::system_clock::time_point(options_.env->Now() + deadline));
    launcher_->Drain(options_.termination_grace);
  }

  void Wait() { server_->Wait(); }

  absl::Status CheckRunnerLease() { return lease_->Check(); }
  void TakeOverOrphans() { jobs_->TakeOverOrphans(Admission()); }

  store::Store& store() { return *store_; }
  absl::StatusOr<JobRecord> CancelJob(std::string_view job_id) {
    return jobs_->Cancel(job_id);
  }

  absl::Status DeleteStudy(std::string_view name) {
    return engine_->DeleteStudy(name);
  }

  engine::TuningEngine& engine() { return *engine_; }

  std::shared_ptr<grpc::Channel> InProcessChannel() {
    return server_->InProcessChannel(grpc::ChannelArguments());
  }

  absl::Status AuthorizeAdmin(std::string_view authorization) const {
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller,
                            auth_.IdentifyHeader(authorization));
    if (caller.admin) return absl::OkStatus();
    return absl::PermissionDeniedError(
        "only the server's own token may write under --gcs-root: what is "
        "there runs as every user's packages");
  }

  // The drained job threads are parked for good: a drained server is never
  // destroyed (the process exits), and a server that was not drained
  // cancels its jobs in JobManager's destructor.
  ~Impl() {
    if (server_) server_->Shutdown();
  }

 private:
  ServerOptions options_;
  TokenAuthenticator auth_;
  std::unique_ptr<store::Store> store_;
  // Held while serving; its jobs' holds (in jobs_) end before it.
  std::unique_ptr<store::RunnerLease> lease_;
  std::unique_ptr<UserQuotas> quotas_;
  std::unique_ptr<engine::TuningEngine> engine_;
  std::unique_ptr<jobs::DrainingLauncher> launcher_;
  // Shared by every job's runner: outlives jobs_.
  std::unique_ptr<runner::TrialAdmission> admission_;
  std::unique_ptr<jobs::JobManager> jobs_;
  std::unique_ptr<JobAccess> access_;
  std::unique_ptr<read::CachedStudyAnswers> answers_;
  std::unique_ptr<StudyService> study_service_;
  std::unique_ptr<JobService> job_service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<IdentitySocket> identity_;
  int port_ = 0;
};

HptuneServer::HptuneServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
HptuneServer::~HptuneServer() = default;

absl::StatusOr<std::unique_ptr<HptuneServer>> HptuneServer::Start(
    ServerOptions options) {
  HPTUNE_CHECK(options.env != nullptr, "ServerOptions::env is required");
  LimitAllocatorArenas();  // Before gRPC's threads exist.
  auto impl = std::make_unique<Impl>(std::move(options));
  HPTUNE_RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<HptuneServer>(new HptuneServer(std::move(impl)));
}

int HptuneServer::port() const { return impl_->port(); }
void HptuneServer::Drain(std::chrono::milliseconds deadline) {
  impl_->Drain(deadline);
}
void HptuneServer::Wait() { impl_->Wait(); }
absl::Status HptuneServer::CheckRunnerLease() {
  return impl_->CheckRunnerLease();
}
void HptuneServer::TakeOverOrphans() { impl_->TakeOverOrphans(); }
store::Store& HptuneServer::store() { return impl_->store(); }
std::shared_ptr<grpc::Channel> HptuneServer::InProcessChannel() {
  return impl_->InProcessChannel();
}
absl::Status HptuneServer::AuthorizeAdmin(
    std::string_view authorization) const {
  return impl_->AuthorizeAdmin(authorization);
}
absl::StatusOr<JobRecord> HptuneServer::CancelJob(std::string_view job_id) {
  return impl_->CancelJob(job_id);
}

absl::Status HptuneServer::DeleteStudy(std::string_view name) {
  return impl_->DeleteStudy(name);
}

absl::StatusOr<Trial> HptuneServer::CompleteTrial(std::string_view study,
                                                  int64_t trial,
                                                  Measurement final) {
  return impl_->engine().CompleteTrial(study, trial, std::move(final));
}

absl::StatusOr<Trial> HptuneServer::MarkTrialInfeasible(
    std::string_view study, int64_t trial, std::string_view reason) {
  return impl_->engine().MarkTrialInfeasible(study, trial, reason);
}

}  // namespace hptune::server
