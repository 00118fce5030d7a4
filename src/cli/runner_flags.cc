#include "src/cli/runner_flags.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hptune::cli {

std::string DatabaseFlag(const ParsedArgs& args, const EnvLookup& env) {
  if (auto db = args.Get("db")) return *db;
  return env("HPTUNE_DB").value_or(kDefaultDatabase);
}

std::filesystem::path StateDirFlag(const ParsedArgs& args,
                                   const std::string& name) {
  return args.Get(name).value_or(kDefaultStateDir);
}

absl::Status CheckPathFlag(std::string_view flag,
                           const std::filesystem::path& path, PathKind kind) {
  absl::Status status = CheckPrivatePath(path, kind);
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(std::string(flag), ": ", status.message()));
}

absl::StatusOr<launch::GpuInventory> GpusFlag(const ParsedArgs& args,
                                              const EnvLookup& env, Env& os) {
  std::string source = "--gpus";
  std::optional<std::string> spec = args.Get("gpus");
  if (!spec) {
    source = "$HPTUNE_GPUS";
    spec = env("HPTUNE_GPUS");
  }
  if (!spec) return launch::GpuInventory::Detect(os);
  absl::StatusOr<launch::GpuInventory> inventory =
      launch::GpuInventory::FromSpec(*spec);
  if (!inventory.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", inventory.status().message()));
  }
  return inventory;
}

absl::StatusOr<std::chrono::milliseconds> ParseGraceSeconds(
    const std::string& text) {
  double seconds = 0;
  // !(>= 0) refuses NaN; the bound refuses infinity and keeps the product
  // below within an int64.
  if (!absl::SimpleAtod(text, &seconds) || !(seconds >= 0) ||
      seconds > kMaxGraceSeconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grace-seconds: expected a number of seconds from 0 to ",
                     kMaxGraceSeconds, " such as 5 or 2.5, got \"",
                     text.substr(0, 100), "\""));
  }
  return std::chrono::milliseconds(std::llround(seconds * 1000));
}

absl::StatusOr<std::string> GcsRootFlag(const ParsedArgs& args, Env& env) {
  const std::optional<std::string> root = args.Get("gcs-root");
  if (!root) return std::string();
  absl::StatusOr<std::filesystem::path> absolute = env.Absolute(*root);
  absl::StatusOr<FileInfo> info =
      absolute.ok() ? env.InfoOf(*absolute, Links::kFollow)
                    : absl::StatusOr<FileInfo>(absolute.status());
  if (root->empty() || !info.ok() || info->type != FileType::kDirectory) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--gcs-root: expected a directory (gs://B/P is then DIR/B/P), got \"",
        root->substr(0, 200), "\"",
        info.ok() || root->empty()
            ? ""
            : absl::StrCat(": ", info.status().message())));
  }
  return absolute->lexically_normal().string();
}

absl::StatusOr<ReplicaFlags> ReadReplicaFlags(const ParsedArgs& args) {
  ReplicaFlags flags;
  if (args.Has("max-restarts")) {
    HPTUNE_ASSIGN_OR_RETURN(flags.max_restarts,
                            IntegerFlag(args, "max-restarts", 0));
  }
  if (args.Has("max-retries")) {
    HPTUNE_ASSIGN_OR_RETURN(flags.max_retries,
                            IntegerFlag(args, "max-retries", 0));
  }
  if (auto grace = args.Get("grace-seconds")) {
    HPTUNE_ASSIGN_OR_RETURN(flags.grace, ParseGraceSeconds(*grace));
  }
  if (auto text = args.Get("max-log-bytes")) {
    int64_t bytes = 0;
    if (!absl::SimpleAtoi(*text, &bytes) || bytes < 0 ||
        (bytes > 0 && bytes < kMinMaxLogBytes) || bytes > kMaxMaxLogBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--max-log-bytes: expected 0 (no cap) or a number of bytes from ",
          kMinMaxLogBytes, " to ", kMaxMaxLogBytes, ", got \"",
          text->substr(0, 100), "\""));
    }
    flags.max_log_bytes = bytes;
  }
  return flags;
}

}  // namespace hptune::cli
