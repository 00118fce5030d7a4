// HptuneServer: the composition root of `hptune serve`.
//
// Opens the SQLite store, builds the engine, the launcher (local processes
// unless ServerOptions brings one, e.g. Slurm's; behind a DrainingLauncher)
// and the job manager, resumes the jobs a previous server
// left unfinished, and serves StudyService and JobService, with gRPC health
// checking and reflection, on one address. Shutdown on SIGTERM is a drain:
// new calls are refused, calls in flight get a short deadline, every
// replica is stopped, and no job or trial changes state, so the next server
// on the same database resumes every unfinished job (see DrainAndExit).
//
// Thread-safety: Start, port and Drain may be called from any thread.
#ifndef HPTUNE_SRC_SERVER_SERVER_H_
#define HPTUNE_SRC_SERVER_SERVER_H_

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/core/job.h"
#include "hptune/core/measurement.h"
#include "hptune/core/trial.h"
#include "hptune/env/env.h"
#include "hptune/launch/gpu_inventory.h"
#include "hptune/launch/launcher.h"
#include "hptune/store/store.h"
#include "src/server/user_quotas.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace hptune::server {

// Five minutes: a client's heartbeat comes every third of it, so a lease
// survives a pause of a few minutes (a GC, a slow file system), and a
// killed client's trials are free again soon after.
inline constexpr int kDefaultTrialLeaseSeconds = 300;

struct ServerOptions {
  // The machine: clock, files and waits for every part the server builds.
  // Required; set by the composition root (`hptune serve`, an embedder);
  // must outlive the server.
  Env* env = nullptr;
  std::string listen_address = "127.0.0.1:7460";  // Port 0: pick a free one.
  // A path or a store URL (hptune/store/open_store.h).
  std::string db_path = "hptune.db";
  // The store already open (then db_path only names it), and its runner
  // lease (RunnerHolder::kSharedServer) when held: what `hptune serve`'s
  // runtime hands over. The server opens db_path when the store is null, and
  // takes the lease when it is null.
  std::unique_ptr<store::Store> store;
  std::unique_ptr<store::RunnerLease> runner_lease;
  // Replica logs, metric files and default job dirs: <state_dir>/<job>/<N>/.
  std::filesystem::path state_dir = "hptune-runs";
  // The local root of jobs' gs:// paths (runner::JobRunnerOptions::
  // gcs_root); empty: none.
  std::string gcs_root;
  // Every StudyService and JobService call must carry this bearer token.
  // Empty is refused unless allow_unauthenticated says otherwise.
  std::string token;
  // Serve without authentication: anyone who can connect runs programs as
  // this process's user. For an embedder that guards the port itself (the
  // throughput benchmark does); `hptune serve` never sets it.
  bool allow_unauthenticated = false;
  std::string tls_cert;  // PEM text; both empty: no TLS.
  std::string tls_key;
  launch::GpuInventory gpus;  // For the local launcher.
  // Runs every job's trials instead of local processes (SlurmLauncher),
  // and the name a submitted job's `backend` must match.
  std::unique_ptr<launch::Launcher> launcher;
  std::string backend_name = "local";
  std::chrono::milliseconds termination_grace{5000};
  // Which programs submitted jobs may run (CommandPolicy's rules); empty:
  // any.
  std::vector<std::string> allowed_commands;
  // What those rules let pools bring in besides (PoolPolicy): variables
  // beyond the harmless ones, and images.
  std::vector<std::string> allowed_env;
  std::vector<std::string> allowed_images;
  // Per trial attempt, and re-runs per trial (runner::JobRunnerOptions).
  int max_replica_restarts = 5;
  int max_trial_retries = 3;
  // The cap on each replica's log (runner::JobRunnerOptions::max_log_bytes).
  int64_t max_log_bytes = int64_t{64} << 20;
  // The lease of trials handed to ask/tell clients (docs/api.md, "Leases"):
  // one ends FAILED after this long without a heartbeat. 0: no leases.
  int trial_lease_seconds = kDefaultTrialLeaseSeconds;
  // The GP's refits inside the suggestion due one, so suggestions depend on
  // the seed and the history alone (engine::EngineOptions::
  // background_designer_work off); false: on the engine's worker.
  bool inline_refits = false;
  // gRPC's limit on one request; larger ones get RESOURCE_EXHAUSTED.
  int max_request_bytes = 4 << 20;
  // Several users (job_access.h): a Unix socket served as well, with its
  // identity socket beside it (identity_socket.h); empty: none.
  std::filesystem::path socket_path;
  // "USER TOKEN" lines (TokenAuthenticator::LoadUsersFile); empty: none.
  std::filesystem::path users_file;
  bool allow_root_trials = false;  // JobAccessRules.
  bool share_jobs = false;
  // Per-user limits on studies and stored measurement bytes (UserQuotas).
  QuotaLimits quotas;
  // Gets a line per job and trial start and end (jobs::JobLog), from the
  // jobs' threads; none when empty.
  std::function<void(const std::string&)> job_log;
};

class HptuneServer {
 public:
  // Opens everything, resumes unfinished jobs and starts serving.
  // FailedPrecondition naming the database, or Unavailable naming the
  // address when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<HptuneServer>> Start(
      ServerOptions options);
  ~HptuneServer();

  // The port actually bound (the chosen one for port 0).
  int port() const;

  // Stops accepting calls, lets calls in flight finish for up to `deadline`,
  // then stops every replica (SIGTERM, the grace, SIGKILL) while the job
  // runners are frozen. Jobs and trials keep their states. Afterwards the
  // process must exit (runner threads stay parked): use std::_Exit.
  void Drain(std::chrono::milliseconds deadline);

  // Blocks until the gRPC server has shut down.
  void Wait();

  // OK while the server still holds its store's runner lease
  // (store::RunnerLease::Check): a server that lost it must stop running
  // jobs. Called from one thread at a time (the serve command's watch).
  absl::Status CheckRunnerLease();
  // On a store several servers share, every lease interval (the serve
  // command's watch, once CheckRunnerLease said OK): takes over the jobs
  // whose server died and passes on to this server's runners the cancels
  // others recorded (jobs::JobManager::TakeOverOrphans). Nothing on a store
  // of one server. Called from one thread at a time.
  void TakeOverOrphans();

  // The server's store and job control, for the dashboard `hptune serve`
  // starts beside it (src/dashboard): thread-safe, alive while the server
  // is.
  store::Store& store();
  // A channel to the gRPC services inside this process, for the REST
  // gateway (src/rest): its calls meet the same authentication, per-user
  // rules and limits as any client's. Alive while the server is.
  std::shared_ptr<grpc::Channel> InProcessChannel();
  // OK when an HTTP `Authorization` value carries the server's own token
  // (its user, the administrator); UNAUTHENTICATED or PermissionDenied
  // otherwise. For a REST route that calls no gRPC service (the storage
  // upload, which writes under --gcs-root as the server's user).
  absl::Status AuthorizeAdmin(std::string_view authorization) const;
  absl::StatusOr<JobRecord> CancelJob(std::string_view job_id);
  // The engine's DeleteStudy (StudyService's): FailedPrecondition naming
  // the job while the study's job has not ended.
  absl::Status DeleteStudy(std::string_view name);
  // The engine's CompleteTrial and MarkTrialInfeasible (StudyService's).
  absl::StatusOr<Trial> CompleteTrial(std::string_view study, int64_t trial,
                                      Measurement final);
  absl::StatusOr<Trial> MarkTrialInfeasible(std::string_view study,
                                            int64_t trial,
                                            std::string_view reason);

  class Impl;

 private:
  explicit HptuneServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_SERVER_H_
