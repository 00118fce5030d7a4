#include "src/store/postgres_lease.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/mutex.h"
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

// The two-int form's arguments of one of the lease's locks.
std::string LockArgs(int32_t key) {
  return absl::StrCat("(", kPgLockClass, ", ", key, ")");
}

// Takes and frees the database's write lock: every write begun before it
// has committed or rolled back when this returns (postgres_fence.h).
absl::Status CrossWriteLock(PgConnection& session) {
  return session.InTransaction(
      "BEGIN", [&] { return session.Exec(PgWriteLockStatement()); });
}

// Takes, on the lease's session, a fence lock (postgres_fence.h) of a token
// drawn from the session's backend pid and start time, so that no other
// live session has it; the next token while one is taken. The token.
absl::StatusOr<int32_t> TakeFenceLock(PgConnection& session) {
  HPTUNE_ASSIGN_OR_RETURN(
      PgResult result,
      session.Query("SELECT hashtext(pg_backend_pid() || ' ' || "
                    "backend_start::text) FROM pg_stat_activity WHERE pid = "
                    "pg_backend_pid()"));
  int32_t token = 0;
  if (!absl::SimpleAtoi(PgValue(result, 0, 0), &token)) {
    return absl::InternalError("the session's fence token is no number");
  }
  for (int tries = 0; tries < 16; ++tries,
           token = static_cast<int32_t>(static_cast<uint32_t>(token) + 1)) {
    HPTUNE_ASSIGN_OR_RETURN(
        PgResult taken,
        session.Query(absl::StrCat("SELECT pg_try_advisory_lock(",
                                   kPgFenceClass, ", ", token, ")")));
    if (PgValue(taken, 0, 0) == "t") return token;
  }
  return absl::UnavailableError("no free fence token for the runner lease");
}

// Runs `call` (a pg_try_advisory_lock...) and returns what it answered.
absl::StatusOr<bool> TryLock(PgConnection& session, const std::string& call) {
  HPTUNE_ASSIGN_OR_RETURN(PgResult result,
                          session.Query(absl::StrCat("SELECT ", call)));
  return PgValue(result, 0, 0) == "t";
}

// The locks live as long as this connection. `key` is the lock whose hold
// says the lease is held (kPgRunnerLock, or a shared server's
// kPgServersLock).
class PgRunnerLease : public RunnerLease {
 public:
  PgRunnerLease(std::unique_ptr<PgConnection> session, int32_t key, bool shared,
                int32_t token, std::shared_ptr<PgFence> fence)
      : session_(std::move(session)),
        key_(key),
        shared_(shared),
        token_(token),
        fence_(std::move(fence)) {
    fence_->Add(token_);
  }
  ~PgRunnerLease() override {
    MutexLock lock(&mu_);
    // A lease lost before anything wrote through the fence still closes it.
    if (absl::StatusOr<bool> held = Held(); held.ok() && *held) {
      fence_->Remove(token_);
    } else {
      fence_->Lost();
    }
    ReleaseLocks(*session_);
  }

  // Held while the session lives and still holds its lock.
  absl::Status Check() override {
    MutexLock lock(&mu_);
    absl::StatusOr<bool> held = Held();
    if (held.ok() && *held) return absl::OkStatus();
    fence_->Lost();
    return absl::UnavailableError(absl::StrCat(
        "lost the runner lease on database \"", session_->printable(), "\": ",
        held.ok() ? "its advisory lock is no longer held"
                  : std::string(held.status().message())));
  }

  bool shared() const override { return shared_; }

  absl::StatusOr<std::unique_ptr<JobHold>> HoldJob(
      std::string_view job_id) override;

  // PgJobHold's end: frees the job's lock, unless the session is gone (and
  // the lock with it).
  void Release(int64_t key) {
    MutexLock lock(&mu_);
    if (held_.erase(key) == 0 || !session_->ok()) return;
    (void)session_->Exec(absl::StrCat("SELECT pg_advisory_unlock(", key, ")"));
  }

 private:
  absl::StatusOr<bool> Held() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    HPTUNE_ASSIGN_OR_RETURN(
        PgResult held,
        session_->Query(absl::StrCat(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
            "pid = pg_backend_pid() AND granted AND classid = ",
            kPgLockClass, " AND objid = ", key_, " AND objsubid = 2")));
    return PgValue(held, 0, 0) != "0";
  }

  Mutex mu_;
  const std::unique_ptr<PgConnection> session_ ABSL_PT_GUARDED_BY(mu_);
  const int32_t key_;
  const bool shared_;
  const int32_t token_;  // Its fence lock's (postgres_fence.h).
  const std::shared_ptr<PgFence> fence_;
  // The jobs held (HoldJob): a session's advisory lock is granted again to
  // the session that holds it, so this lease refuses a second hold itself.
  std::set<int64_t> held_ ABSL_GUARDED_BY(mu_);
};

class PgJobHold : public JobHold {
 public:
  PgJobHold(PgRunnerLease& lease, int64_t key) : lease_(lease), key_(key) {}
  ~PgJobHold() override { lease_.Release(key_); }

 private:
  PgRunnerLease& lease_;
  const int64_t key_;
};

absl::StatusOr<std::unique_ptr<JobHold>> PgRunnerLease::HoldJob(
    std::string_view job_id) {
  if (!shared_) return RunnerLease::HoldJob(job_id);
  const int64_t key = PgJobLockKey(job_id);
  MutexLock lock(&mu_);
  bool taken = false;
  if (!held_.contains(key)) {
    HPTUNE_ASSIGN_OR_RETURN(
        taken,
        TryLock(*session_, absl::StrCat("pg_try_advisory_lock(", key, ")")));
  }
  if (!taken) {
    return absl::UnavailableError(
        absl::StrCat("job ", std::string(job_id), " is held by ",
                     held_.contains(key) ? "this server" : "another runner",
                     " on database \"", session_->printable(),
                     "\" (PostgreSQL advisory lock)"));
  }
  if (absl::Status crossed = CrossWriteLock(*session_); !crossed.ok()) {
    (void)session_->Exec(absl::StrCat("SELECT pg_advisory_unlock(", key, ")"));
    return crossed;
  }
  held_.insert(key);
  return std::make_unique<PgJobHold>(*this, key);
}

// Whether no other session holds `key`'s lock in this database (advisory
// locks are per database), read from the lock table.
// Taking the lock for a moment to find out would itself refuse another
// server starting at that moment. Each caller takes its own lock before it
// reads the other's, so of a run and a server starting together at least
// one sees the other (both may be refused; neither goes unseen).
absl::StatusOr<bool> FreeOfOthers(PgConnection& session, int32_t key) {
  HPTUNE_ASSIGN_OR_RETURN(
      PgResult holders,
      session.Query(absl::StrCat(
          "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
          "granted AND pid <> pg_backend_pid() AND database = (SELECT oid "
          "FROM pg_database WHERE datname = current_database()) AND "
          "classid = ",
          kPgLockClass, " AND objid = ", key, " AND objsubid = 2")));
  return PgValue(holders, 0, 0) == "0";
}

absl::Status InUseByRuns(PgConnection& session) {
  return absl::UnavailableError(absl::StrCat(
      "database \"", session.printable(),
      "\" is in use by hptune run (PostgreSQL advisory lock); serve it once "
      "those runs end, or serve another --db"));
}

absl::Status ServedAlready(PgConnection& session) {
  return absl::UnavailableError(absl::StrCat(
      "database \"", session.printable(),
      "\" is already served by another hptune serve (PostgreSQL advisory "
      "lock); stop it first, or serve another --db"));
}

// kServer: both locks, exclusively.
absl::Status TakeServerLocks(PgConnection& session) {
  HPTUNE_ASSIGN_OR_RETURN(
      bool held, TryLock(session, absl::StrCat("pg_try_advisory_lock",
                                               LockArgs(kPgRunnerLock))));
  if (!held) {
    // Shared would succeed only if the holders are runs.
    HPTUNE_ASSIGN_OR_RETURN(
        bool runs, TryLock(session, absl::StrCat("pg_try_advisory_lock_shared",
                                                 LockArgs(kPgRunnerLock))));
    return runs ? InUseByRuns(session) : ServedAlready(session);
  }
  HPTUNE_ASSIGN_OR_RETURN(
      held, TryLock(session, absl::StrCat("pg_try_advisory_lock",
                                          LockArgs(kPgServersLock))));
  return held ? absl::OkStatus() : ServedAlready(session);
}

// kSharedServer: the servers' lock shared, and no run.
absl::Status TakeSharedServerLocks(PgConnection& session) {
  HPTUNE_ASSIGN_OR_RETURN(
      bool held, TryLock(session, absl::StrCat("pg_try_advisory_lock_shared",
                                               LockArgs(kPgServersLock))));
  if (!held) {
    return absl::UnavailableError(absl::StrCat(
        "database \"", session.printable(),
        "\" is held alone by another runner (hptune store migrate?) "
        "(PostgreSQL advisory lock); serve it once that ends"));
  }
  HPTUNE_ASSIGN_OR_RETURN(bool no_runs, FreeOfOthers(session, kPgRunnerLock));
  return no_runs ? absl::OkStatus() : InUseByRuns(session);
}

absl::Status TakeRunLocks(PgConnection& session, std::string_view job_id) {
  HPTUNE_ASSIGN_OR_RETURN(
      bool shared, TryLock(session, absl::StrCat("pg_try_advisory_lock_shared",
                                                 LockArgs(kPgRunnerLock))));
  if (shared) {
    HPTUNE_ASSIGN_OR_RETURN(shared, FreeOfOthers(session, kPgServersLock));
  }
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

absl::Status TakeLocks(PgConnection& session, RunnerHolder holder,
                       std::string_view job_id) {
  switch (holder) {
    case RunnerHolder::kServer:
      return TakeServerLocks(session);
    case RunnerHolder::kSharedServer:
      return TakeSharedServerLocks(session);
    case RunnerHolder::kRun:
      break;
  }
  return TakeRunLocks(session, job_id);
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
    const PgPool& pool, RunnerHolder holder, std::string_view job_id,
    std::shared_ptr<PgFence> fence) {
  const bool shared = holder == RunnerHolder::kSharedServer;
  if (holder != RunnerHolder::kRun && !job_id.empty()) {
    return absl::InvalidArgumentError("a server's runner lease holds no job");
  }
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> session,
                          pool.Connect());
  absl::Status taken = TakeLocks(*session, holder, job_id);
  absl::StatusOr<int32_t> token = taken.ok() ? TakeFenceLock(*session) : taken;
  if (token.ok()) taken = CrossWriteLock(*session);
  if (!token.ok() || !taken.ok()) {
    ReleaseLocks(*session);  // A refused lease leaves no lock behind.
    return token.ok() ? taken : token.status();
  }
  return std::make_unique<PgRunnerLease>(
      std::move(session), shared ? kPgServersLock : kPgRunnerLock, shared,
      *token, std::move(fence));
}

}  // namespace hptune::store::internal
