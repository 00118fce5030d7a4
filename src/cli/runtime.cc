#include "src/cli/runtime.h"

#include <system_error>

#include "absl/strings/str_cat.h"
#include "hptune/core/check.h"
#include "hptune/env/env.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/store/open_store.h"
#include "src/cli/runner_flags.h"
#include "src/cli/stop_signals.h"

namespace hptune::cli {
namespace {

RuntimeError Failed(RuntimeStep step, absl::Status status) {
  return RuntimeError{.step = step, .status = std::move(status)};
}

// SQLite opens its companions by name, following links: a planted one
// would take the database's writes. A memory: store has no file.
absl::Status CheckPrivatePaths(const RuntimeOptions& options,
                               const store::StoreUrl& url) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal", ".serve-lock"}) {
    if (url.scheme != store::StoreUrl::Scheme::kSqlite) break;
    if (absl::Status s = CheckPathFlag(options.db_source, url.path + suffix,
                                       PathKind::kFile);
        !s.ok()) {
      return s;
    }
  }
  return CheckPathFlag(absl::StrCat("--", options.state_flag),
                       options.state_dir, PathKind::kDirectory);
}

// kShow needs a file to show; kRead reads a memory: store too (empty). A
// PostgreSQL database is the server's to know: opening it says.
bool DatabaseExists(Env& env, StoreUse use, const store::StoreUrl& url) {
  if (url.scheme == store::StoreUrl::Scheme::kMemory) {
    return use == StoreUse::kRead;
  }
  if (url.scheme == store::StoreUrl::Scheme::kPostgres) return true;
  absl::StatusOr<FileInfo> info = env.InfoOf(url.path, Links::kFollow);
  return info.ok() && info->type == FileType::kRegular;
}

}  // namespace

RuntimeOptions RuntimeOptionsFromFlags(StoreUse use, const ParsedArgs& args,
                                       const EnvLookup& env,
                                       const std::string& state_flag) {
  RuntimeOptions options;
  options.use = use;
  options.db = DatabaseFlag(args, env);
  options.env = &DefaultEnv();
  options.db_source =
      !args.Has("db") && env("HPTUNE_DB") ? "$HPTUNE_DB" : "--db";
  if (!state_flag.empty()) {
    options.state_flag = state_flag;
    options.state_dir = StateDirFlag(args, state_flag);
  }
  return options;
}

int ExitCodeOf(const RuntimeError& error) {
  switch (error.step) {
    case RuntimeStep::kPaths:
      return kExitInvalid;
    case RuntimeStep::kMissing:
      return kExitNotFound;
    default:
      return kExitFailure;
  }
}

std::optional<RuntimeError> CheckRuntimePaths(const RuntimeOptions& options) {
  absl::StatusOr<store::StoreUrl> url = store::ParseStoreUrl(options.db);
  if (!url.ok()) {
    return Failed(RuntimeStep::kPaths,
                  absl::InvalidArgumentError(absl::StrCat(
                      options.db_source, ": ", url.status().message())));
  }
  if (options.use != StoreUse::kRunJobs &&
      !DatabaseExists(*options.env, options.use, *url)) {
    const std::string where = url->path.empty() ? options.db : url->path;
    return Failed(
        RuntimeStep::kMissing,
        absl::NotFoundError(absl::StrCat(
            options.db_source, ": no study database at \"", where, "\"")));
  }
  if (options.use == StoreUse::kRead) return std::nullopt;
  if (absl::Status s = CheckPrivatePaths(options, *url); !s.ok()) {
    return Failed(RuntimeStep::kPaths, std::move(s));
  }
  return std::nullopt;
}

std::variant<Runtime, RuntimeError> MakeRuntime(const RuntimeOptions& options) {
  HPTUNE_CHECK(options.env != nullptr, "RuntimeOptions::env is required");
  if (std::optional<RuntimeError> error = CheckRuntimePaths(options)) {
    return *std::move(error);
  }
  Runtime runtime;
  runtime.env = options.env;
  runtime.db = options.db;
  runtime.state_dir = options.state_dir;
  if (options.use == StoreUse::kRunJobs) {
    // What replicas leave there is trusted: made private, as checked.
    if (absl::Status s = CheckPrivateDirectory(options.state_dir); !s.ok()) {
      return Failed(RuntimeStep::kOpen, std::move(s));
    }
  }
  sigemptyset(&runtime.stop_signals);
  if (options.block_stop_signals) runtime.stop_signals = BlockStopSignals();
  // The collector's thread outlives any command's Env: the machine's.
  if (options.reap_orphans) launch::BecomeChildSubreaper(DefaultEnv());
  absl::StatusOr<std::unique_ptr<store::Store>> store =
      store::OpenStore(options.db, options.env->clock(), {.env = options.env});
  if (!store.ok()) return Failed(RuntimeStep::kOpen, store.status());
  runtime.store = *std::move(store);
  if (options.use != StoreUse::kRunJobs) return runtime;
  // Run's lease is held until its job ends: no `hptune serve` may resume
  // the job meanwhile, and a second run of it takes over only from a
  // runner that died. A server's is held alone, while it serves.
  absl::StatusOr<std::unique_ptr<store::RunnerLease>> lease =
      runtime.store->AcquireRunnerLease(options.holder, options.job_id);
  if (!lease.ok()) return Failed(RuntimeStep::kLease, lease.status());
  runtime.lease = *std::move(lease);
  return runtime;
}

}  // namespace hptune::cli
