#include "tests/testing/postgres_server.h"

#include <errno.h>
#include <glob.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/store/postgres_lease.h"
#include "src/store/postgres_schema.h"
#include "tests/testing/run_process.h"

namespace hptune::testing {
namespace {

// The user initdb and the server run as when the tests run as root.
constexpr uid_t kServerUid = 65534;  // nobody
constexpr gid_t kServerGid = 65534;
constexpr char kDatabaseUser[] = "hptune";

// The bin directory of the newest PostgreSQL installed, or "".
std::string FindBinDir() {
  glob_t found{};
  std::vector<std::string> dirs;
  if (glob("/usr/lib/postgresql/*/bin/initdb", 0, nullptr, &found) == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) {
      dirs.push_back(
          std::filesystem::path(found.gl_pathv[i]).parent_path().string());
    }
  }
  globfree(&found);
  if (dirs.empty()) return "";
  std::sort(dirs.begin(), dirs.end());
  return dirs.back();
}

// `argv` run as the server's user when this process is root.
std::vector<std::string> AsServerUser(std::vector<std::string> argv) {
  if (geteuid() != 0) return argv;
  std::vector<std::string> wrapped = {
      "/usr/bin/setpriv", absl::StrCat("--reuid=", kServerUid),
      absl::StrCat("--regid=", kServerGid), "--clear-groups", "--"};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

absl::Status Run(const std::vector<std::string>& argv,
                 const std::string& what) {
  const ProcessResult result =
      RunProcessWithEnv(AsServerUser(argv), {"LC_ALL=C"});
  if (result.exit_code == 0) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(what, " failed (exit ",
                                             result.exit_code,
                                             "): ", result.err.substr(0, 500)));
}

// Runs `sql` on the server's postgres database.
absl::Status AdminSql(const std::string& dir, const std::string& sql) {
  const std::string admin = absl::StrCat("postgresql:///postgres?host=", dir,
                                         "&user=", kDatabaseUser);
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectdb(admin.c_str()),
                                                  PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return absl::UnavailableError(PQerrorMessage(conn.get()));
  }
  std::unique_ptr<PGresult, void (*)(PGresult*)> result(
      PQexec(conn.get(), sql.c_str()), PQclear);
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    return absl::InternalError(PQresultErrorMessage(result.get()));
  }
  return absl::OkStatus();
}

std::string UrlIn(const std::string& dir, const std::string& name) {
  return absl::StrCat("postgresql:///", name, "?host=", dir,
                      "&user=", kDatabaseUser);
}

// The shared server, deleted at exit.
PostgresServer* shared_server = nullptr;

// Where a server listens in `dir`.
bool Listening(const std::string& dir) {
  struct stat info {};
  return stat((dir + "/.s.PGSQL.5432").c_str(), &info) == 0;
}

}  // namespace

absl::StatusOr<PostgresServer*> PostgresServer::Shared() {
  static absl::StatusOr<PostgresServer*> const server =
      []() -> absl::StatusOr<PostgresServer*> {
    auto server = std::unique_ptr<PostgresServer>(new PostgresServer());
    // The ctest fixture's (tests/testing/CMakeLists.txt), or another.
    const char* shared = std::getenv("HPTUNE_TEST_POSTGRES");
    if (shared == nullptr) shared = HPTUNE_TEST_POSTGRES_DIR;
    if (Listening(shared)) {
      server->dir_ = shared;
    } else {
      char pattern[] = "/tmp/hptune-pg-XXXXXX";  // Short: a socket path is.
      if (mkdtemp(pattern) == nullptr) {
        return absl::UnavailableError("cannot make a temporary directory");
      }
      server->dir_ = pattern;
      server->owned_ = true;
      if (absl::Status started = StartIn(server->dir_); !started.ok()) {
        return started;
      }
    }
    shared_server = server.release();
    std::atexit([] { delete shared_server; });
    return shared_server;
  }();
  return server;
}

absl::Status PostgresServer::StartIn(const std::string& dir, bool durable) {
  const std::string bin = FindBinDir();
  if (bin.empty()) {
    return absl::UnavailableError(
        "no PostgreSQL server installed (no /usr/lib/postgresql/*/bin/initdb)");
  }
  StopIn(dir);
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::UnavailableError(absl::StrCat("cannot make ", dir));
  }
  if (geteuid() == 0 && chown(dir.c_str(), kServerUid, kServerGid) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot chown ", dir));
  }
  const std::string data = dir + "/data";
  absl::Status status =
      Run({bin + "/initdb", "-D", data, "-U", kDatabaseUser, "-A", "trust",
           "-E", "UTF8", "--locale=C", "--no-sync"},
          "initdb");
  if (!status.ok()) return status;
  // fsync off unless `durable`: the tests check what clients see, never an
  // OS crash, and a database per test is then cheap to create.
  return Run(
      {bin + "/pg_ctl", "start", "-w", "-D", data, "-l", dir + "/server.log",
       "-o",
       absl::StrCat("-c listen_addresses='' -k ", dir,
                    durable ? "" : " -c fsync=off -c full_page_writes=off")},
      "pg_ctl start");
}

void PostgresServer::StopIn(const std::string& dir) {
  const std::string bin = FindBinDir();
  if (!bin.empty() && Listening(dir)) {
    (void)Run(
        {bin + "/pg_ctl", "stop", "-w", "-m", "immediate", "-D", dir + "/data"},
        "pg_ctl stop");
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

PostgresServer::~PostgresServer() {
  if (owned_) {
    StopIn(dir_);
    return;
  }
  MutexLock lock(&mu_);
  for (const std::string& name : databases_) {
    (void)AdminSql(dir_, absl::StrCat("DROP DATABASE ", name, " WITH (FORCE)"));
  }
}

std::string PostgresServer::Url(const std::string& name) const {
  return UrlIn(dir_, name);
}

absl::StatusOr<std::string> PostgresServer::CreateDatabaseIn(
    const std::string& dir, const std::string& name) {
  if (!Listening(dir)) {
    return absl::UnavailableError(
        absl::StrCat("no PostgreSQL server listens in ", dir));
  }
  absl::Status made = AdminSql(
      dir, absl::StrCat("CREATE DATABASE ", name, " STRATEGY FILE_COPY"));
  if (!made.ok()) return made;
  return UrlIn(dir, name);
}

absl::StatusOr<std::string> PostgresServer::NewDatabase() {
  std::string name;
  {
    MutexLock lock(&mu_);
    name = absl::StrCat("test_", getpid(), "_", databases_.size() + 1);
    databases_.push_back(name);
  }
  absl::Status made = AdminSql(
      dir_, absl::StrCat("CREATE DATABASE ", name, " STRATEGY FILE_COPY"));
  if (!made.ok()) return made;
  return Url(name);
}

namespace {

// Runs pg_terminate_backend on the sessions of `url`'s database, but this
// one, that hold an advisory lock matching `lock` (a condition on pg_locks'
// classid, objid and objsubid). How many it ended; -1 when it could not ask.
int EndSessionsHolding(const std::string& url, const std::string& lock) {
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectdb(url.c_str()),
                                                  PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) return -1;
  const std::string sql = absl::StrCat(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = "
      "'advisory' AND ",
      lock,
      " AND database = (SELECT oid FROM pg_database WHERE datname = "
      "current_database()) AND pid <> pg_backend_pid()");
  std::unique_ptr<PGresult, void (*)(PGresult*)> ended(
      PQexec(conn.get(), sql.c_str()), PQclear);
  if (PQresultStatus(ended.get()) != PGRES_TUPLES_OK) return -1;
  return PQntuples(ended.get());
}

}  // namespace

int EndRunnerLeaseSessions(const std::string& url) {
  // The runner locks' keys alone: a store's write transactions hold another
  // advisory lock for a moment, and their sessions are not the lease's.
  return EndSessionsHolding(
      url, absl::StrCat("classid = ", store::internal::kPgLockClass,
                        " AND objid IN (", store::internal::kPgRunnerLock, ", ",
                        store::internal::kPgServersLock, ") AND objsubid = 2"));
}

int EndJobHolderSessions(const std::string& url, const std::string& job_id) {
  // A bigint key is shown as its high and low 32 bits (PostgreSQL's docs,
  // "pg_locks": classid and objid, objsubid 1).
  const uint64_t key =
      static_cast<uint64_t>(store::internal::PgJobLockKey(job_id));
  return EndSessionsHolding(
      url, absl::StrCat("classid = ", key >> 32, " AND objid = ",
                        key & 0xffffffffu, " AND objsubid = 1"));
}

}  // namespace hptune::testing
