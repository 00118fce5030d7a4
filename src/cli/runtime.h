// The runtime of an `hptune` command that works on a study database, made
// by one factory. `run` and `serve` (which run jobs on the database),
// `dashboard` (which shows it) and the commands that read it (`studies`,
// `trials` and `jobs describe` with --db) get it from MakeRuntime, which
// takes the steps they share once, in one order, with the same messages
// in every command: the database named by --db, else $HPTUNE_DB, else
// ./hptune.db (a path or a store URL), the paths the command trusts
// checked, the process's stop signals and orphans taken where it serves or
// runs jobs, the store opened by URL (hptune/store/open_store.h) and, where
// the command runs jobs, the store's runner lease taken. What differs
// between the commands, RuntimeOptions says. Each command gives a failed
// step its own exit code (RuntimeError::step).
//
// Used only by src/cli. Thread-safety: free functions, callable from any
// thread; a Runtime has one owner, and its store is thread-safe.
#ifndef HPTUNE_SRC_CLI_RUNTIME_H_
#define HPTUNE_SRC_CLI_RUNTIME_H_

#include <signal.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "absl/status/status.h"
#include "hptune/env/env.h"
#include "hptune/store/store.h"
#include "src/cli/flags.h"

namespace hptune::cli {

// What a command does with its database.
enum class StoreUse {
  // `run`, `serve`: the database is created when missing. It, the files
  // SQLite and hptune keep beside it, and the state directory must be this
  // user's or root's and no link (CheckPrivatePath); the state directory is
  // made; the runner lease is taken.
  kRunJobs,
  // `dashboard`: the database must be a file; the paths as for kRunJobs,
  // since the dashboard deletes what the database names and reads the logs
  // of the state directory. No lease.
  kShow,
  // `studies`, `trials`, `jobs describe` with --db: the database must
  // exist (a memory: store is empty). No path rule, no lease.
  kRead,
};

struct RuntimeOptions {
  StoreUse use = StoreUse::kRead;
  std::string db = "hptune.db";    // A path or a store URL.
  std::string db_source = "--db";  // Names db in messages: "$HPTUNE_DB".
  // kRunJobs, kShow: the directory of replica logs and metric files, and
  // the flag that named it, for messages ("state-dir", "runs-dir").
  std::filesystem::path state_dir;
  std::string state_flag;
  // kRunJobs: who takes the runner lease, and for a run, its job.
  store::RunnerHolder holder = store::RunnerHolder::kRun;
  std::string job_id;
  // serve, dashboard: SIGTERM and SIGINT blocked in every thread, to be
  // taken with WaitForStopSignal (stop_signals.h). Blocked before the store
  // is opened: it may start threads, and a thread that has them unblocked
  // would take them.
  bool block_stop_signals = false;
  // run, serve: replicas' orphaned grandchildren become this process's
  // children, so they are collected (launch::BecomeChildSubreaper).
  bool reap_orphans = false;
  // The machine; its clock stamps what the store records. Set by the
  // command, the composition root (RuntimeOptionsFromFlags: DefaultEnv()).
  Env* env = nullptr;
};

// The options of `use` from a command line: --db, else $HPTUNE_DB, else
// ./hptune.db; the state directory of flag `state_flag` ("" for kRead),
// else ./hptune-runs; the real machine, DefaultEnv().
RuntimeOptions RuntimeOptionsFromFlags(StoreUse use, const ParsedArgs& args,
                                       const EnvLookup& env,
                                       const std::string& state_flag = "");

struct Runtime {
  Env* env = nullptr;
  std::string db;  // As given: a path or a URL.
  std::filesystem::path state_dir;
  sigset_t stop_signals{};  // With block_stop_signals; else empty.
  std::unique_ptr<store::Store> store;
  // kRunJobs: held until destroyed. Declared after the store, which it
  // must not outlive.
  std::unique_ptr<store::RunnerLease> lease;
};

// The step that failed, for the exit code each command gives it.
enum class RuntimeStep {
  kPaths,    // A URL refused, or a path not private: InvalidArgument,
             // FailedPrecondition naming the flag and the path.
  kMissing,  // kShow, kRead: NotFound "--db: no study database at "PATH"".
  kOpen,     // The state directory could not be made (kRunJobs) or the
             // store opened (OpenStore's errors).
  kLease,    // The lease is held: Unavailable naming who holds it.
};

struct RuntimeError {
  RuntimeStep step;
  absl::Status status;
};

// The exit code `serve` and `dashboard` give a failed step: kExitInvalid
// for a URL or a path refused, kExitNotFound for a missing database,
// kExitFailure when the store cannot be opened or its lease is held.
int ExitCodeOf(const RuntimeError& error);

// The checks of MakeRuntime that create nothing: the URL, the database's
// existence (kShow, kRead) and the private paths (kRunJobs, kShow). For a
// command to call before it creates anything else (a token file, a log), so
// that a mistake there leaves nothing behind; MakeRuntime checks again,
// just before it opens.
std::optional<RuntimeError> CheckRuntimePaths(const RuntimeOptions& options);

// Checks, then makes the state directory (kRunJobs), blocks the stop
// signals and reaps orphans as the options say, opens the store and takes
// the runner lease (kRunJobs).
std::variant<Runtime, RuntimeError> MakeRuntime(const RuntimeOptions& options);

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_RUNTIME_H_
