// The flags that configure running jobs, shared by `hptune run`, `hptune
// serve` and `hptune dashboard`: the database (--db), the directory of the
// replicas' logs (run's --runs-dir, the others' --state-dir), the local
// machine's GPUs (--gpus) and what a runner does with a failing or stopped
// replica (--max-restarts, --max-retries, --grace-seconds) and the cap on
// its log (--max-log-bytes). One reading of
// each, so a flag takes the same values and refuses a bad one with the same
// message in every command. Used by those commands only.
//
// Thread-safe: free functions; GpusFlag may run nvidia-smi.
#ifndef HPTUNE_SRC_CLI_RUNNER_FLAGS_H_
#define HPTUNE_SRC_CLI_RUNNER_FLAGS_H_

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "hptune/launch/gpu_inventory.h"
#include "src/cli/flags.h"

namespace hptune::cli {

inline constexpr char kDefaultDatabase[] = "hptune.db";
inline constexpr char kDefaultStateDir[] = "hptune-runs";
// The longest --grace-seconds: a replica that takes longer to stop is killed.
inline constexpr double kMaxGraceSeconds = 3600;
// --max-log-bytes: 0 (no cap), or at least 16 blocks of any file system's
// (Env::CapLog keeps a quarter of it, in whole blocks, as the head), and at
// most 1 PiB.
inline constexpr int64_t kMinMaxLogBytes = int64_t{1} << 20;
inline constexpr int64_t kMaxMaxLogBytes = int64_t{1} << 50;

// --db, else $HPTUNE_DB, else ./hptune.db: a path or a store URL
// (hptune/store/open_store.h: sqlite:PATH, memory:).
std::string DatabaseFlag(const ParsedArgs& args, const EnvLookup& env);

// The directory of replica logs and metric files: flag `name` (run's
// "runs-dir", serve's and dashboard's "state-dir"), else ./hptune-runs.
std::filesystem::path StateDirFlag(const ParsedArgs& args,
                                   const std::string& name);

// CheckPrivatePath with the flag that gave `path` before its message:
// "--log-file: file /var/log/h.log is a symbolic link to ...".
[[nodiscard]] absl::Status CheckPathFlag(std::string_view flag,
                                         const std::filesystem::path& path,
                                         PathKind kind);

// The local machine's GPUs: --gpus, else $HPTUNE_GPUS, else what nvidia-smi
// reports (run through `os`). InvalidArgument naming where a bad spec came
// from ("--gpus: GPU spec ..." or "$HPTUNE_GPUS: ..."); Detect's errors
// otherwise.
absl::StatusOr<launch::GpuInventory> GpusFlag(const ParsedArgs& args,
                                              const EnvLookup& env, Env& os);

// A --grace-seconds value: a decimal number of seconds from 0 to
// kMaxGraceSeconds ("5", "2.5"), to the millisecond. InvalidArgument
// naming the flag, the range and the text otherwise.
absl::StatusOr<std::chrono::milliseconds> ParseGraceSeconds(
    const std::string& text);

// --gcs-root DIR, the local root of gs:// paths (hptune/core/
// bucket_paths.h), made absolute; "" when not given. InvalidArgument
// naming the flag when DIR is no directory.
absl::StatusOr<std::string> GcsRootFlag(const ParsedArgs& args, Env& env);

// What the replica flags give; unset where the flag is not given.
struct ReplicaFlags {
  std::optional<int> max_restarts;                 // --max-restarts N>=0
  std::optional<int> max_retries;                  // --max-retries N>=0
  std::optional<std::chrono::milliseconds> grace;  // --grace-seconds S
  std::optional<int64_t> max_log_bytes;            // --max-log-bytes BYTES
};

// InvalidArgument naming the first bad flag and its value.
absl::StatusOr<ReplicaFlags> ReadReplicaFlags(const ParsedArgs& args);

// Sets what the flags give on `options`, an runner::JobRunnerOptions or a
// server::ServerOptions (both name the fields alike); the rest keep their
// defaults. ReadReplicaFlags' errors.
template <typename Options>
[[nodiscard]] absl::Status ApplyReplicaFlags(const ParsedArgs& args,
                                             Options& options) {
  HPTUNE_ASSIGN_OR_RETURN(ReplicaFlags flags, ReadReplicaFlags(args));
  if (flags.max_restarts) options.max_replica_restarts = *flags.max_restarts;
  if (flags.max_retries) options.max_trial_retries = *flags.max_retries;
  if (flags.grace) options.termination_grace = *flags.grace;
  if (flags.max_log_bytes) options.max_log_bytes = *flags.max_log_bytes;
  return absl::OkStatus();
}

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_RUNNER_FLAGS_H_
