#include "src/cli/commands/serve_command.h"

#include <httplib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/mutex.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/engine/engine.h"
#include "hptune/env/clock.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/launch/slurm_launcher.h"
#include "hptune/store/open_store.h"
#include "src/cli/backend_flags.h"
#include "src/cli/commands/serve_fronts.h"
#include "src/cli/flag_table.h"
#include "src/cli/flags.h"
#include "src/cli/lease_watch.h"
#include "src/cli/runner_flags.h"
#include "src/cli/runtime.h"
#include "src/cli/serving_flags.h"
#include "src/cli/stop_signals.h"
#include "src/dashboard/dashboard_server.h"
#include "src/dashboard/http_address.h"
#include "src/dashboard/http_guard.h"
#include "src/dashboard/https_server.h"
#include "src/rest/rest_gateway.h"
#include "src/server/listen_policy.h"
#include "src/server/server.h"
#include "src/server/tls_files.h"

namespace hptune::cli {
namespace {

constexpr char kUsageHead[] =
    "usage: hptune serve [flags]\n"
    "\n"
    "Serves hptune's gRPC API (hptune.v1.StudyService, JobService, health,\n"
    "reflection): jobs submitted with `hptune jobs submit` run here, their\n"
    "trials as local processes or, with --backend slurm, as Slurm jobs;\n"
    "ask/tell clients use the study service.\n"
    "Every result is in the --db store (a SQLite file or a PostgreSQL\n"
    "database). At start-up, jobs that a previous server left unfinished\n"
    "(crash, SIGKILL, SIGTERM) are resumed; local replicas it left running\n"
    "are stopped and their trials run again, Slurm jobs still running are\n"
    "attached to. Several servers may share one PostgreSQL database: each\n"
    "runs the jobs submitted to it, and takes over within 2 s those of a\n"
    "server that died (docs/operations.md, \"Several servers\"); a SQLite\n"
    "file has one server. A server that loses its PostgreSQL runner lease\n"
    "drains and exits 1.\n"
    "\n"
    "Who may submit jobs: a job runs its programs as the user running this\n"
    "server, so every call needs this server's token. Without --token-file\n"
    "the token is the one in this user's default token file, created with\n"
    "mode 0600 on the first start; this user's hptune commands find it\n"
    "there, other users cannot read it. To let a group submit, give\n"
    "--token-file with a file that group can read. Off loopback the server\n"
    "needs TLS.\n"
    "\n"
    "Several users: a root server runs each job's processes as the user who\n"
    "submitted it (docs/operations.md). Users reach it through --socket,\n"
    "where the kernel tells the server who they are, or with a token of\n"
    "--users-file; root's own jobs need --allow-root-trials.\n"
    "\n";
constexpr char kUsageTail[] =
    "\n"
    "With --backend slurm, --state-dir must be shared with the nodes.\n"
    "SIGTERM or Ctrl-C drains: new calls are refused, calls in flight get 5\n"
    "seconds, every replica is stopped, and the server exits 0 leaving its\n"
    "jobs unfinished; the next `hptune serve` on the same --db resumes them.\n"
    "\n"
    "Exit codes: 0 drained, 1 failed (database, address in use), 2 invalid\n"
    "flags or files (e.g. a non-loopback --listen without TLS), 64\n"
    "bad usage, 69 Slurm unusable (commands missing, controller down).\n";

// The flags' part comes from the flag table (flag_table.h).
std::string Usage() {
  return absl::StrCat(kUsageHead, FlagUsage(kServeCommand), kUsageTail);
}

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

// The flags; the exit code instead when there is nothing to serve (--help,
// or a usage error, written to `err`).
std::variant<ParsedArgs, int> ParseCommandLine(
    const std::vector<std::string>& args, std::ostream& out,
    std::ostream& err) {
  absl::StatusOr<ParsedArgs> parsed = ParseFlags(args, kServeCommand);
  if (!parsed.ok()) {
    err << "hptune serve: " << parsed.status().message() << "\n" << Usage();
    return kExitUsage;
  }
  if (parsed->Has("help")) {
    out << Usage();
    return kExitOk;
  }
  if (!parsed->positional.empty() || !parsed->after_dashes.empty()) {
    err << "hptune serve: takes no arguments\n" << Usage();
    return kExitUsage;
  }
  return *std::move(parsed);
}

// Everything the flags decide, read and checked before anything starts.
struct ServeSetup {
  server::ServerOptions options;
  // The database, the state directory, the process's signals and orphans.
  RuntimeOptions runtime;
  sigset_t stop_signals{};  // Blocked, taken by sigwait.
  std::string token_file;   // Where the token was read, for the start line.
  // The dashboard's, address "off" for none; its actions are set once the
  // server they act through has started.
  dashboard::DashboardOptions dashboard;
  // --rest's, when given: AI Platform's REST API (src/rest), over HTTPS
  // with the gRPC port's pair when it has one.
  std::optional<dashboard::HttpAddress> rest;
  std::string rest_cert, rest_key;
  // --log-file, or null: the job lines to stdout.
  std::unique_ptr<AppendFile> log_file;
};

// The per-user quotas (docs/operations.md, "Quotas").
int ReadQuotaFlags(const ParsedArgs& args, server::QuotaLimits& quotas,
                   std::ostream& err) {
  constexpr int64_t kMaxStudies = 1'000'000'000;
  constexpr int64_t kMaxBytes = int64_t{1} << 50;  // 1 PiB.
  constexpr int64_t kMaxRunningTrials = 1'000'000;
  if (args.Has("max-studies-per-user")) {
    auto n = IntegerFlag<int64_t>(args, "max-studies-per-user", 0, kMaxStudies);
    if (!n.ok()) return Fail(n.status(), kExitUsage, err);
    quotas.max_studies_per_user = *n;
  }
  if (args.Has("max-measurement-bytes-per-user")) {
    auto n = IntegerFlag<int64_t>(args, "max-measurement-bytes-per-user", 0,
                                  kMaxBytes, "a number of bytes");
    if (!n.ok()) return Fail(n.status(), kExitUsage, err);
    quotas.max_measurement_bytes_per_user = *n;
  }
  if (args.Has("max-running-trials-per-user")) {
    auto n = IntegerFlag<int64_t>(args, "max-running-trials-per-user", 0,
                                  kMaxRunningTrials);
    if (!n.ok()) return Fail(n.status(), kExitUsage, err);
    quotas.max_running_trials_per_user = *n;
  }
  return kExitOk;
}

// How jobs run, and whose: the database, the state directory, what becomes
// of failing and stopped replicas, and the users' rules.
int ReadJobFlags(const ParsedArgs& args, ServeSetup& setup, std::ostream& err) {
  server::ServerOptions& options = setup.options;
  setup.runtime = RuntimeOptionsFromFlags(StoreUse::kRunJobs, args,
                                          ProcessEnv(), "state-dir");
  setup.runtime.holder = store::RunnerHolder::kSharedServer;
  options.env = setup.runtime.env;
  setup.runtime.block_stop_signals = true;
  setup.runtime.reap_orphans = true;
  options.db_path = setup.runtime.db;
  options.state_dir = setup.runtime.state_dir;
  if (std::optional<RuntimeError> e = CheckRuntimePaths(setup.runtime)) {
    return Fail(e->status, ExitCodeOf(*e), err);
  }
  if (absl::Status s = ApplyReplicaFlags(args, options); !s.ok()) {
    return Fail(s, kExitUsage, err);
  }
  absl::StatusOr<std::string> gcs_root = GcsRootFlag(args, *options.env);
  if (!gcs_root.ok()) return Fail(gcs_root.status(), kExitUsage, err);
  options.gcs_root = *gcs_root;
  options.allowed_commands = args.GetAll("allow-command");
  options.allowed_env = args.GetAll("allow-env");
  options.allowed_images = args.GetAll("allow-image");
  options.socket_path = args.Get("socket").value_or("");
  options.users_file = args.Get("users-file").value_or("");
  options.allow_root_trials = args.Has("allow-root-trials");
  options.share_jobs = args.Has("share-jobs");
  options.inline_refits = args.Has("inline-refits");
  if (args.Has("trial-lease")) {
    auto lease =
        IntegerFlag<int>(args, "trial-lease", 0, engine::kMaxLeaseSeconds,
                         "a number of seconds");
    if (!lease.ok()) return Fail(lease.status(), kExitUsage, err);
    options.trial_lease_seconds = *lease;
  }
  return ReadQuotaFlags(args, options.quotas, err);
}

// --rest: AI Platform's REST API (src/rest), when given and not "off";
// off loopback only with TLS, as the dashboard (bearer tokens cross it).
int ReadRestFlag(const ParsedArgs& args, bool tls, ServeSetup& setup,
                 std::ostream& err) {
  std::optional<std::string> rest = args.Get("rest");
  if (!rest || *rest == "off") return kExitOk;
  auto address = dashboard::ParseHttpAddress("rest", *rest, /*tls=*/true);
  if (!address.ok()) return Fail(address.status(), kExitInvalid, err);
  if (!address->loopback && !tls) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
                    "--rest \"", *rest,
                    "\": refusing to serve the REST API off loopback without "
                    "TLS: bearer tokens would cross the network in the clear; "
                    "give --tls-cert and --tls-key, or use a loopback address "
                    "(e.g. 127.0.0.1:7462)")),
                kExitInvalid, err);
  }
  setup.rest = *address;
  return kExitOk;
}

// The addresses (gRPC, the dashboard's), the TLS pair and the token.
int ReadListenFlags(const ParsedArgs& args, ServeSetup& setup,
                    std::ostream& err) {
  server::ServerOptions& options = setup.options;
  options.listen_address =
      args.Get("listen").value_or(server::kDefaultListenAddress);
  ServingCredentials credentials;
  if (int code =
          ReadTlsFlags(*setup.runtime.env, args, "serve", credentials, err);
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
  const bool tls = !options.tls_cert.empty();
  absl::Status listen = server::CheckListenAddress(options.listen_address, tls);
  if (!listen.ok()) return Fail(listen, kExitInvalid, err);
  setup.dashboard.address =
      args.Get("http").value_or(DefaultHttpAddress(options.listen_address));
  if (setup.dashboard.address != "off") {
    absl::StatusOr<dashboard::HttpAddress> address =
        dashboard::ParseHttpAddress("http", setup.dashboard.address, tls);
    if (!address.ok()) return Fail(address.status(), kExitInvalid, err);
  }
  if (int code = ReadRestFlag(args, tls, setup, err); code != kExitOk) {
    return code;
  }
  if (int code =
          ReadTokenFlag(*setup.runtime.env, args, "serve", credentials, err);
      code != kExitOk) {
    return code;
  }
  options.token = credentials.token;
  setup.token_file = credentials.token_file;
  return kExitOk;
}

// Where every job's trials run: Slurm jobs, or processes on this machine's
// GPUs.
int ReadBackendFlags(const ParsedArgs& args, RepeatedSlurmFlags slurm_flags,
                     server::ServerOptions& options, std::ostream& err) {
  BackendConfig backend;
  if (absl::Status s = ApplyBackendFlags(args, std::move(slurm_flags), backend,
                                         BackendFlagsFor::kServer);
      !s.ok()) {
    return Fail(s, kExitUsage, err);
  }
  if (backend.backend == "slurm") {
    auto slurm = CreateSlurmLauncher(backend, args, *options.env);
    if (!slurm.ok()) {
      return Fail(slurm.status(),
                  absl::IsInvalidArgument(slurm.status())
                      ? kExitUsage
                      : kExitSlurmUnavailable,
                  err);
    }
    options.launcher = *std::move(slurm);
    options.backend_name = "slurm";
    return kExitOk;
  }
  auto gpus = GpusFlag(args, ProcessEnv(), *options.env);
  if (!gpus.ok()) return Fail(gpus.status(), kExitInvalid, err);
  options.gpus = *std::move(gpus);
  return kExitOk;
}

// --log-file, opened to append: one write(2) per line, so the lines of two
// servers never interleave.
int OpenLogFile(const ParsedArgs& args, ServeSetup& setup, std::ostream& err) {
  std::optional<std::string> log_file = args.Get("log-file");
  if (!log_file) return kExitOk;
  if (absl::Status s = CheckPathFlag("--log-file", *log_file, PathKind::kFile);
      !s.ok()) {
    return Fail(s, kExitInvalid, err);
  }
  absl::StatusOr<std::unique_ptr<AppendFile>> opened =
      setup.runtime.env->OpenForAppending(*log_file, 0600);
  if (!opened.ok()) {
    return Fail(absl::InvalidArgumentError(
                    absl::StrCat("--log-file: ", opened.status().message())),
                kExitInvalid, err);
  }
  setup.log_file = *std::move(opened);
  return kExitOk;
}

int ReadServeFlags(const ParsedArgs& args, ServeSetup& setup,
                   std::ostream& err) {
  // The flags that create nothing first: a mistake there leaves no token
  // file behind.
  if (int code = ReadJobFlags(args, setup, err); code != kExitOk) {
    return code;
  }
  if (int code = ReadListenFlags(args, setup, err); code != kExitOk) {
    return code;
  }
  if (int code = ReadBackendFlags(args, RepeatedSlurmFlagsOf(args),
                                  setup.options, err);
      code != kExitOk) {
    return code;
  }
  if (int code = OpenLogFile(args, setup, err); code != kExitOk) {
    return code;
  }
  setup.dashboard.token = setup.options.token;
  setup.dashboard.tls_cert = setup.options.tls_cert;
  setup.dashboard.tls_key = setup.options.tls_key;
  setup.rest_cert = setup.options.tls_cert;
  setup.rest_key = setup.options.tls_key;
  setup.dashboard.state_dir = setup.options.state_dir;
  setup.dashboard.env = setup.runtime.env;
  return kExitOk;
}

// The store and its lease, handed to the server; the stop signals are
// blocked before the store or gRPC start a thread (runtime.h).
int OpenRuntime(ServeSetup& setup, std::ostream& err) {
  std::variant<Runtime, RuntimeError> made = MakeRuntime(setup.runtime);
  if (const RuntimeError* e = std::get_if<RuntimeError>(&made)) {
    return Fail(e->status, ExitCodeOf(*e), err);
  }
  Runtime& runtime = std::get<Runtime>(made);
  setup.options.store = std::move(runtime.store);
  setup.options.runner_lease = std::move(runtime.lease);
  setup.stop_signals = runtime.stop_signals;
  return kExitOk;
}

// Where the server's lines go. The job and trial lines come from the jobs'
// threads: to the log file when there is one, else to `out` under `mu`,
// which the start lines hold too.
struct ServeOutput {
  ServeOutput(std::ostream& out, AppendFile* log_file, Env& env)
      : out(out), log_file(log_file), env(env) {}
  std::ostream& out;
  AppendFile* const log_file;  // Null: the job lines go to `out`.
  Env& env;                    // Whose clock stamps the log file's lines.
  Mutex mu;
};

std::function<void(const std::string&)> JobLogger(ServeOutput& output) {
  return [&output](const std::string& line) {
    if (output.log_file != nullptr) {
      (void)output.log_file->Append(absl::StrCat(
          FormatRfc3339(output.env.Now()), " hptune serve: ", line, "\n"));
      return;
    }
    MutexLock lock(&output.mu);
    output.out << "hptune serve: " << line << std::endl;
  };
}

// What the start lines say, kept before the options go to the server.
struct StartLines {
  std::string listen;
  std::string db;
  std::string state_dir;
  std::string backend;
  std::string token_file;
  std::filesystem::path socket;
};

StartLines StartLinesOf(const ServeSetup& setup) {
  return {.listen = setup.options.listen_address,
          .db = store::PrintableStoreUrl(setup.options.db_path),
          .state_dir = setup.options.state_dir.string(),
          .backend = setup.options.backend_name,
          .token_file = setup.token_file,
          .socket = setup.options.socket_path};
}

void PrintStartLines(const StartLines& lines, int port, std::ostream& out) {
  // A Unix socket has no port: its path is where clients connect.
  out << "hptune serve: listening on "
      << (lines.listen.starts_with("unix:") ? lines.listen
                                            : absl::StrCat("port ", port))
      << " (db " << lines.db
      << (lines.db == "memory:" ? ", nothing persists" : "") << ", state "
      << lines.state_dir << ", backend " << lines.backend << ")" << std::endl;
  out << "hptune serve: clients authenticate with the token in "
      << lines.token_file << std::endl;
  if (!lines.socket.empty()) {
    out << "hptune serve: also on unix:" << lines.socket.string()
        << ", where each local user gets a token of their own" << std::endl;
  }
  if (lines.backend != "slurm") {
    out << "hptune serve: each trial's processes are contained by "
        << launch::ReplicaContainment() << std::endl;
  }
}

// AI Platform's REST API in front of the server's gRPC services, with the
// dashboard's TLS and Host rules.
absl::StatusOr<std::unique_ptr<rest::RestGateway>> StartRest(
    server::HptuneServer& server, Env& env, std::string gcs_root,
    const ServeSetup& setup) {
  const dashboard::HttpAddress& address = *setup.rest;
  return rest::RestGateway::Start(
      {.host = address.host,
       .port = address.port,
       .channel = server.InProcessChannel(),
       .now = [&env] { return env.Now(); },
       .storage = StorageOf(server, env, std::move(gcs_root)),
       .make_http =
           [cert = setup.rest_cert, key = setup.rest_key] {
             return dashboard::MakeHttpServer("--rest", cert, key);
           },
       .host_allowed =
           [host = address.host](std::string_view header) {
             return dashboard::HostAllowed(header, host);
           }});
}

// Waits for SIGTERM or SIGINT, or for the watch to find the runner lease
// lost (it sends SIGTERM), then drains and ends the process, non-zero for a
// lost lease: job runner threads are parked inside the drained launcher, so
// it ends without unwinding them (the store is consistent after every call).
[[noreturn]] void DrainOnStopSignal(const sigset_t& stop_signals,
                                    server::HptuneServer& server,
                                    dashboard::DashboardServer* web,
                                    rest::RestGateway* rest,
                                    const LeaseWatch& watch,
                                    ServeOutput& output, std::ostream& err) {
  const int signal = WaitForStopSignal(stop_signals);
  const absl::Status lost = watch.lost();
  {
    MutexLock lock(&output.mu);
    output.out << "hptune serve: "
               << (lost.ok() ? absl::StrCat("signal ", signal)
                             : std::string(lost.message()))
               << ": draining (jobs stay resumable)" << std::endl;
  }
  if (web != nullptr) web->Stop();
  if (rest != nullptr) rest->Stop();
  server.Drain(std::chrono::seconds(5));
  MutexLock lock(&output.mu);
  output.out << "hptune serve: drained" << std::endl;
  err.flush();
  std::_Exit(lost.ok() ? kExitOk : kExitFailure);
}

// A front beside the gRPC server (the dashboard, the REST API) could not
// start: the server drains what it began and the process ends with the
// reason.
[[noreturn]] void ExitAsAFrontFailed(server::HptuneServer& server,
                                     const absl::Status& status,
                                     std::ostream& err) {
  server.Drain(std::chrono::seconds(1));
  err << "hptune serve: " << status.message() << "\n";
  err.flush();
  std::_Exit(kExitFailure);
}

}  // namespace

int RunServeCommand(const std::vector<std::string>& raw_args, std::ostream& out,
                    std::ostream& err) {
  // Replicas inherit this process's environment; a client's token there is
  // not theirs to see (the server reads its own from a file).
  unsetenv("HPTUNE_TOKEN");
  std::variant<ParsedArgs, int> parsed = ParseCommandLine(raw_args, out, err);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  ServeSetup setup;
  if (int code = ReadServeFlags(std::get<ParsedArgs>(parsed), setup, err);
      code != kExitOk) {
    return code;
  }
  if (int code = OpenRuntime(setup, err); code != kExitOk) return code;
  ServeOutput output(out, setup.log_file.get(), *setup.runtime.env);
  setup.options.job_log = JobLogger(output);
  const StartLines start_lines = StartLinesOf(setup);
  const std::string token = setup.options.token;
  std::string gcs_root = setup.options.gcs_root;
  // The start lines come before any job's.
  output.mu.Lock();
  auto server = server::HptuneServer::Start(std::move(setup.options));
  if (!server.ok()) {
    output.mu.Unlock();
    return Fail(server.status(), kExitFailure, err);
  }
  PrintStartLines(start_lines, (*server)->port(), out);
  std::unique_ptr<dashboard::DashboardServer> web;
  if (setup.dashboard.address != "off") {
    auto started = StartDashboard(**server, std::move(setup.dashboard));
    if (!started.ok()) {
      output.mu.Unlock();
      ExitAsAFrontFailed(**server, started.status(), err);
    }
    web = *std::move(started);
    // The link holding the token only on a terminal: never into a log.
    out << "hptune serve: dashboard: " << web->url() << " (log in with the "
        << "token"
        << (isatty(STDOUT_FILENO)
                ? ", or open " + web->url() + "login?token=" + token
                : std::string())
        << ")" << std::endl;
  }
  std::unique_ptr<rest::RestGateway> rest;
  if (setup.rest) {
    auto started =
        StartRest(**server, *setup.runtime.env, std::move(gcs_root), setup);
    if (!started.ok()) {
      output.mu.Unlock();
      ExitAsAFrontFailed(**server, started.status(), err);
    }
    rest = *std::move(started);
    out << "hptune serve: AI Platform REST API on "
        << (setup.rest_cert.empty() ? "http" : "https") << "://"
        << setup.rest->host << ":" << rest->port() << "/v1/" << std::endl;
  }
  output.mu.Unlock();
  Env& env = *setup.runtime.env;
  // Each check of the lease is also when a server sharing its store with
  // others takes over the jobs of those that died.
  const LeaseWatch watch(
      env, kLeaseCheckInterval,
      [&] {
        absl::Status held = (*server)->CheckRunnerLease();
        if (held.ok()) (*server)->TakeOverOrphans();
        return held;
      },
      [&env](const absl::Status&) { kill(env.ProcessId(), SIGTERM); });
  DrainOnStopSignal(setup.stop_signals, **server, web.get(), rest.get(), watch,
                    output, err);
}

}  // namespace hptune::cli
