#include "src/store/postgres_lease.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/store/postgres_schema.h"

namespace hptune::store::internal {
namespace {

// Frees the session's advisory locks before it closes. Closing alone is not
// enough: the server ends a backend after the client has gone, so its locks
// would outlive the lease by a moment and refuse the next holder.
void ReleaseLocks(PgConnection& session) {
  if (session.ok()) (void)session.Exec("SELECT pg_advisory_unlock_all()");
}

// The locks live as long as this connection.
class PgRunnerLease : public RunnerLease {
 public:
  explicit PgRunnerLease(std::unique_ptr<PgConnection> session)
      : session_(std::move(session)) {}
  ~PgRunnerLease() override { ReleaseLocks(*session_); }

  // Held while the session lives and still holds the runner lock (as a
  // server's exclusive or a run's shared lock).
  absl::Status Check() override {
    absl::StatusOr<PgResult> held = session_->Query(absl::StrCat(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = "
        "pg_backend_pid() AND granted AND classid = ",
        kPgLockClass, " AND objid = ", kPgRunnerLock, " AND objsubid = 2"));
    if (held.ok() && PgValue(*held, 0, 0) != "0") return absl::OkStatus();
    return absl::UnavailableError(absl::StrCat(
        "lost the runner lease on database \"", session_->printable(), "\": ",
        held.ok() ? "its advisory lock is no longer held"
                  : std::string(held.status().message())));
  }

 private:
  std::unique_ptr<PgConnection> session_;
};

// Runs `call` (a pg_try_advisory_lock...) and returns what it answered.
absl::StatusOr<bool> TryLock(PgConnection& session, const std::string& call) {
  HPTUNE_ASSIGN_OR_RETURN(PgResult result,
                          session.Query(absl::StrCat("SELECT ", call)));
  return PgValue(result, 0, 0) == "t";
}

std::string RunnerLockArgs() {
  return absl::StrCat("(", kPgLockClass, ", ", kPgRunnerLock, ")");
}

absl::Status TakeServerLock(PgConnection& session) {
  HPTUNE_ASSIGN_OR_RETURN(
      bool held,
      TryLock(session, absl::StrCat("pg_try_advisory_lock", RunnerLockArgs())));
  if (held) return absl::OkStatus();
  // Shared would succeed only if the holders are runs.
  HPTUNE_ASSIGN_OR_RETURN(
      bool runs, TryLock(session, absl::StrCat("pg_try_advisory_lock_shared",
                                               RunnerLockArgs())));
  if (runs) {
    return absl::UnavailableError(absl::StrCat(
        "database \"", session.printable(),
        "\" is in use by hptune run (PostgreSQL advisory lock); serve it once "
        "those runs end, or serve another --db"));
  }
  return absl::UnavailableError(absl::StrCat(
      "database \"", session.printable(),
      "\" is already served by another hptune serve (PostgreSQL advisory "
      "lock); stop it first, or serve another --db"));
}

absl::Status TakeRunLocks(PgConnection& session, std::string_view job_id) {
  HPTUNE_ASSIGN_OR_RETURN(
      bool shared, TryLock(session, absl::StrCat("pg_try_advisory_lock_shared",
                                                 RunnerLockArgs())));
  if (!shared) {
    return absl::UnavailableError(absl::StrCat(
        "database \"", session.printable(),
        "\" is served by hptune serve (PostgreSQL advisory lock): submit the "
        "job to the server with `hptune jobs submit`, or run it on another "
        "--db"));
  }
  if (job_id.empty()) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(
      bool job, TryLock(session, absl::StrCat("pg_try_advisory_lock(",
                                              PgJobLockKey(job_id), ")")));
  if (job) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "job ", std::string(job_id),
      " is being run by another runner on database \"", session.printable(),
      "\" (PostgreSQL advisory lock): wait for it, or cancel it there"));
}

}  // namespace

int64_t PgJobLockKey(std::string_view job_id) {
  uint64_t hash = 14695981039346656037ull;
  for (const char c : job_id) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return static_cast<int64_t>(hash);
}

absl::StatusOr<std::unique_ptr<RunnerLease>> AcquirePgRunnerLease(
    const PgPool& pool, RunnerHolder holder, std::string_view job_id) {
  const bool server = holder == RunnerHolder::kServer;
  if (server && !job_id.empty()) {
    return absl::InvalidArgumentError("a server's runner lease holds no job");
  }
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> session,
                          pool.Connect());
  absl::Status taken =
      server ? TakeServerLock(*session) : TakeRunLocks(*session, job_id);
  if (!taken.ok()) {
    ReleaseLocks(*session);  // A refused lease leaves no lock behind.
    return taken;
  }
  return std::make_unique<PgRunnerLease>(std::move(session));
}

}  // namespace hptune::store::internal
