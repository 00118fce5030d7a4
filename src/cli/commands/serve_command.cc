#include "src/cli/commands/serve_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/mutex.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/env/clock.h"
#include "hptune/launch/gpu_inventory.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/launch/slurm_launcher.h"
#include "src/cli/backend_flags.h"
#include "src/cli/flags.h"
#include "src/cli/serving_flags.h"
#include "src/dashboard/dashboard_server.h"
#include "src/dashboard/http_address.h"
#include "src/server/listen_policy.h"
#include "src/server/server.h"
#include "src/server/tls_files.h"

namespace hptune::cli {
namespace {

constexpr char kUsage[] =
    "usage: hptune serve [flags]\n"
    "\n"
    "Serves hptune's gRPC API (hptune.v1.StudyService, JobService, health,\n"
    "reflection): jobs submitted with `hptune jobs submit` run here, their\n"
    "trials as local processes or, with --backend slurm, as Slurm jobs;\n"
    "ask/tell clients use the study service.\n"
    "Every result is in the SQLite file. At start-up, jobs that a previous\n"
    "server left unfinished (crash, SIGKILL, SIGTERM) are resumed; local\n"
    "replicas it left running are stopped and their trials run again, Slurm\n"
    "jobs still running are attached to.\n"
    "\n"
    "Who may submit jobs: a job runs its programs as the user running this\n"
    "server, so every call needs this server's token. Without --token-file\n"
    "the token is the one in this user's default token file\n"
    "($HPTUNE_CONFIG_DIR/token, else $XDG_CONFIG_HOME/hptune/token, else\n"
    "~/.config/hptune/token), created with mode 0600 on the first start;\n"
    "this user's hptune commands find it there, other users cannot read\n"
    "it. To let a group submit, give --token-file with a file that group\n"
    "can read. Off loopback the server needs TLS.\n"
    "\n"
    "Several users: a root server runs each job's processes as the user who\n"
    "submitted it (docs/operations.md). Users reach it through --socket,\n"
    "where the kernel tells the server who they are, or with a token of\n"
    "--users-file; root's own jobs need --allow-root-trials.\n"
    "  --socket PATH          also serve on this Unix socket (mode 0666;\n"
    "                         e.g. /run/hptune/hptune.sock, where clients "
    "look\n"
    "                         first), and hand each local user a token of\n"
    "                         their own on PATH.identity\n"
    "  --users-file F         lines \"USER TOKEN\": calls with TOKEN act as\n"
    "                         USER (F: this user's, mode 0600)\n"
    "  --allow-root-trials    a root server runs root's jobs (its own\n"
    "                         token's) as root; without it, it refuses them\n"
    "  --share-jobs           every user may see, stream and cancel every job\n"
    "                         (default: only their own)\n"
    "\n"
    "  --listen ADDR          default 127.0.0.1:7460 (port 0: any free port).\n"
    "                         Any non-loopback address needs TLS\n"
    "  --http ADDR|off        the web dashboard (docs/dashboard.md); default\n"
    "                         --listen's host and port + 1 (127.0.0.1:7461;\n"
    "                         port 0 stays 0). Same token; off loopback, the\n"
    "                         same TLS certificate\n"
    "  --db FILE              default $HPTUNE_DB, else ./hptune.db\n"
    "  --state-dir DIR        replica logs, metric files, default job dirs;\n"
    "                         default ./hptune-runs\n"
    "  --log-file F           the line per job and trial start and end goes\n"
    "                         to F (appended, 0600, each line timestamped)\n"
    "                         instead of stdout\n"
    "  --token-file F         clients must send `authorization: Bearer\n"
    "                         <token>` with the token in F (default: the\n"
    "                         user's default token file, see above)\n"
    "  --tls-cert F --tls-key F   serve TLS with this PEM certificate and key\n"
    "  --gpus SPEC            a count (\"4\"), indices (\"0,1\") or "
    "TYPE:COUNT;\n"
    "                         default $HPTUNE_GPUS, else what nvidia-smi "
    "reports\n"
    "  --grace-seconds S      SIGTERM to SIGKILL for replicas (default 5)\n"
    "  --max-restarts N       restarts of a failed replica per attempt\n"
    "                         (default 5)\n"
    "  --max-retries N        re-runs of a trial whose attempt failed or\n"
    "                         died with the server (default 3)\n"
    "  --allow-command RULE   only jobs whose trainer a rule allows (repeat\n"
    "                         for more): DIR/ (programs under it), PROGRAM,\n"
    "                         or PROGRAM:DIR/ (an interpreter with a script\n"
    "                         or package under DIR); default: any\n"
    "  --backend local|slurm  where every job's trials run (default local);\n"
    "                         a job whose config names the other is refused\n"
    "  --slurm-partition P --slurm-account A --slurm-time T\n"
    "  --slurm-option=OPT     sbatch options of every trial (repeatable);\n"
    "                         --state-dir must be shared with the nodes\n"
    "  --slurm-gpu-type=T=G   acceleratorConfig type T is the cluster's gres\n"
    "                         type G, e.g. NVIDIA_TESLA_T4=t4 (repeatable);\n"
    "                         then a job asking for a type not mapped is\n"
    "                         refused\n"
    "\n"
    "SIGTERM or Ctrl-C drains: new calls are refused, calls in flight get 5\n"
    "seconds, every replica is stopped, and the server exits 0 leaving its\n"
    "jobs unfinished; the next `hptune serve` on the same --db resumes them.\n"
    "\n"
    "Exit codes: 0 drained, 1 failed (database, address in use), 2 invalid\n"
    "flags or files (e.g. a non-loopback --listen without TLS), 64\n"
    "bad usage, 69 Slurm unusable (commands missing, controller down).\n";

constexpr int kExitSlurmUnavailable = 69;  // sysexits EX_UNAVAILABLE.

// The dashboard beside the gRPC address: its host, the next port (port 0,
// any free port, stays 0); loopback for a unix: socket.
std::string DefaultHttpAddress(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  int port = 0;
  if (listen.starts_with("unix:") || colon == std::string::npos ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port >= 65535) {
    return dashboard::kDefaultHttpAddress;
  }
  return absl::StrCat(listen.substr(0, colon), ":", port == 0 ? 0 : port + 1);
}

int Fail(const absl::Status& status, int code, std::ostream& err) {
  err << "hptune serve: " << status.message() << "\n";
  return code;
}

}  // namespace

int RunServeCommand(const std::vector<std::string>& raw_args, std::ostream& out,
                    std::ostream& err) {
  // Replicas inherit this process's environment; a client's token there is
  // not theirs to see (the server reads its own from a file).
  unsetenv("HPTUNE_TOKEN");
  std::vector<std::string> args = raw_args;
  RepeatedSlurmFlags slurm_flags = TakeRepeatedSlurmFlags(args);
  std::vector<std::string> allowed_commands =
      TakeRepeatedFlag(args, "--allow-command");
  std::set<std::string> value_flags = {
      "listen",      "db",       "state-dir", "token-file",    "http",
      "tls-cert",    "tls-key",  "gpus",      "grace-seconds", "max-restarts",
      "max-retries", "log-file", "socket",    "users-file"};
  value_flags.insert(std::begin(kBackendValueFlags),
                     std::end(kBackendValueFlags));
  auto parsed =
      ParseArgs(args, value_flags, {"help", "allow-root-trials", "share-jobs"});
  if (!parsed.ok()) {
    err << "hptune serve: " << parsed.status().message() << "\n" << kUsage;
    return kExitUsage;
  }
  if (parsed->Has("help")) {
    out << kUsage;
    return kExitOk;
  }
  if (!parsed->positional.empty() || !parsed->after_dashes.empty()) {
    err << "hptune serve: takes no arguments\n" << kUsage;
    return kExitUsage;
  }
  server::ServerOptions options;
  options.listen_address =
      parsed->Get("listen").value_or(server::kDefaultListenAddress);
  const char* env_db = std::getenv("HPTUNE_DB");
  options.db_path = parsed->Get("db").value_or(env_db ? env_db : "hptune.db");
  options.state_dir = parsed->Get("state-dir").value_or("hptune-runs");
  ServingCredentials credentials;
  if (int code = ReadTlsFlags(*parsed, "serve", credentials, err);
      code != kExitOk) {
    return code;
  }
  if (!credentials.tls_cert_pem.empty()) {
    if (absl::Status s =
            server::CheckTlsFiles({.cert_path = credentials.tls_cert_path,
                                   .cert_pem = credentials.tls_cert_pem,
                                   .key_path = credentials.tls_key_path,
                                   .key_pem = credentials.tls_key_pem});
        !s.ok()) {
      return Fail(s, kExitInvalid, err);
    }
  }
  options.tls_cert = credentials.tls_cert_pem;
  options.tls_key = credentials.tls_key_pem;
  absl::Status listen = server::CheckListenAddress(options.listen_address,
                                                   !options.tls_cert.empty());
  if (!listen.ok()) return Fail(listen, kExitInvalid, err);
  if (int code = ReadTokenFlag(*parsed, "serve", credentials, err);
      code != kExitOk) {
    return code;
  }
  options.token = credentials.token;
  const std::string token_file = credentials.token_file;
  if (auto grace = parsed->Get("grace-seconds")) {
    double seconds = 0;
    if (!absl::SimpleAtod(*grace, &seconds) || !(seconds >= 0) ||
        seconds > 3600) {
      return Fail(
          absl::InvalidArgumentError(absl::StrCat(
              "--grace-seconds: expected 0 to 3600, got \"", *grace, "\"")),
          kExitUsage, err);
    }
    options.termination_grace =
        std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  }
  for (auto [flag, value] :
       {std::pair{"max-restarts", &options.max_replica_restarts},
        std::pair{"max-retries", &options.max_trial_retries}}) {
    if (!parsed->Has(flag)) continue;
    absl::StatusOr<int> n = IntegerFlag<int>(*parsed, flag, 0);
    if (!n.ok()) return Fail(n.status(), kExitUsage, err);
    *value = *n;
  }
  options.allowed_commands = std::move(allowed_commands);
  options.socket_path = parsed->Get("socket").value_or("");
  options.users_file = parsed->Get("users-file").value_or("");
  options.allow_root_trials = parsed->Has("allow-root-trials");
  options.share_jobs = parsed->Has("share-jobs");
  BackendConfig backend;
  if (absl::Status s = ApplyBackendFlags(*parsed, std::move(slurm_flags),
                                         backend, BackendFlagsFor::kServer);
      !s.ok()) {
    return Fail(s, kExitUsage, err);
  }
  if (backend.backend == "slurm") {
    auto slurm = CreateSlurmLauncher(backend, *parsed);
    if (!slurm.ok()) {
      return Fail(slurm.status(),
                  absl::IsInvalidArgument(slurm.status())
                      ? kExitUsage
                      : kExitSlurmUnavailable,
                  err);
    }
    options.launcher = *std::move(slurm);
    options.backend_name = "slurm";
  } else {
    const char* env_gpus = std::getenv("HPTUNE_GPUS");
    std::optional<std::string> gpu_spec = parsed->Get("gpus");
    if (!gpu_spec && env_gpus != nullptr) gpu_spec = env_gpus;
    auto gpus = gpu_spec ? launch::GpuInventory::FromSpec(*gpu_spec)
                         : launch::GpuInventory::Detect();
    if (!gpus.ok()) return Fail(gpus.status(), kExitInvalid, err);
    options.gpus = *std::move(gpus);
  }

  // Signals are taken by sigwait below, so every thread (gRPC's, the job
  // runners') must have them blocked: block before any thread exists.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // Orphaned grandchildren of replicas become ours, so they are collected.
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  const std::string http_address =
      parsed->Get("http").value_or(DefaultHttpAddress(options.listen_address));
  dashboard::DashboardOptions dashboard_options{.address = http_address,
                                                .token = options.token,
                                                .tls_cert = options.tls_cert,
                                                .tls_key = options.tls_key,
                                                .state_dir = options.state_dir};
  if (http_address != "off") {
    // Checked before anything starts, as --listen is.
    absl::StatusOr<dashboard::HttpAddress> address =
        dashboard::ParseHttpAddress("http", http_address,
                                    !options.tls_cert.empty());
    if (!address.ok()) return Fail(address.status(), kExitInvalid, err);
  }
  const std::string db = options.db_path;
  const std::string state_dir = options.state_dir.string();
  const std::string backend_name = options.backend_name;
  const std::filesystem::path socket_path = options.socket_path;
  // A line per job and trial start and end, from the jobs' threads; the
  // lines below take the same lock. With --log-file, to that file: one
  // write(2) per line, appended, so lines of two servers never interleave.
  Mutex out_mutex;
  int log_fd = -1;
  if (auto log_file = parsed->Get("log-file")) {
    log_fd = ::open(log_file->c_str(),
                    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log_fd < 0) {
      return Fail(absl::InvalidArgumentError(
                      absl::StrCat("--log-file: cannot open \"", *log_file,
                                   "\": ", std::strerror(errno))),
                  kExitInvalid, err);
    }
  }
  options.job_log = [&out, &out_mutex, log_fd](const std::string& line) {
    if (log_fd >= 0) {
      const std::string text = absl::StrCat(FormatRfc3339(SystemClock().Now()),
                                            " hptune serve: ", line, "\n");
      (void)!::write(log_fd, text.data(), text.size());
      return;
    }
    MutexLock lock(&out_mutex);
    out << "hptune serve: " << line << std::endl;
  };
  const std::string options_token = options.token;
  // The start-up lines come before any job's.
  out_mutex.Lock();
  auto server = server::HptuneServer::Start(std::move(options));
  if (!server.ok()) {
    out_mutex.Unlock();
    return Fail(server.status(), kExitFailure, err);
  }
  out << "hptune serve: listening on port " << (*server)->port() << " (db "
      << db << ", state " << state_dir << ", backend " << backend_name << ")"
      << std::endl;
  out << "hptune serve: clients authenticate with the token in " << token_file
      << std::endl;
  if (!socket_path.empty()) {
    out << "hptune serve: also on unix:" << socket_path.string()
        << ", where each local user gets a token of their own" << std::endl;
  }
  if (backend_name != "slurm") {
    out << "hptune serve: each trial's processes are contained by "
        << launch::ReplicaContainment() << std::endl;
  }
  std::unique_ptr<dashboard::DashboardServer> web;
  if (http_address != "off") {
    dashboard_options.cancel_job =
        [server = server->get()](std::string_view job_id) {
          return server->CancelJob(job_id);
        };
    auto started = dashboard::DashboardServer::Start(
        (*server)->store(), std::move(dashboard_options));
    if (!started.ok()) {
      out_mutex.Unlock();
      (*server)->Drain(std::chrono::seconds(1));
      err << "hptune serve: " << started.status().message() << "\n";
      err.flush();
      std::_Exit(kExitFailure);
    }
    web = *std::move(started);
    // The link holding the token only on a terminal: never into a log.
    out << "hptune serve: dashboard: " << web->url() << " (log in with the "
        << "token"
        << (isatty(STDOUT_FILENO)
                ? ", or open " + web->url() + "login?token=" + options_token
                : std::string())
        << ")" << std::endl;
  }

  out_mutex.Unlock();

  int signal = 0;
  while (sigwait(&stop_signals, &signal) != 0) {
  }
  {
    MutexLock lock(&out_mutex);
    out << "hptune serve: signal " << signal
        << ": draining (jobs stay resumable)" << std::endl;
  }
  if (web) web->Stop();
  (*server)->Drain(std::chrono::seconds(5));
  out_mutex.Lock();  // Held to the exit: no job's line after this one.
  out << "hptune serve: drained" << std::endl;
  err.flush();
  // Job runner threads are parked inside the drained launcher; the process
  // ends without unwinding them (the store is consistent after every call).
  std::_Exit(kExitOk);
}

}  // namespace hptune::cli
