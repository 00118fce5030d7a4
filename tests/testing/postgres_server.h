// A real PostgreSQL server for tests, started by the test binary itself:
// initdb in a temporary directory and `pg_ctl start` listening only on a
// Unix socket there (no TCP port), run as an unprivileged user when the
// tests run as root (initdb refuses root), with trust authentication: the
// socket sits in a private 0700 directory. Under ctest one server serves
// every test process: the fixture test postgres.start starts it in the
// build's directory for it (tests/testing/CMakeLists.txt; another where
// $HPTUNE_TEST_POSTGRES names one) and postgres.stop stops it; a test binary
// run by hand, or when that server is not there, starts one of its own on first
// use and stops it at exit. Each test takes a database of its own
// (NewDatabase), dropped at exit. Used by the PostgresStore tests. Thread-safe.
#ifndef HPTUNE_TESTS_TESTING_POSTGRES_SERVER_H_
#define HPTUNE_TESTS_TESTING_POSTGRES_SERVER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"

namespace hptune::testing {

class PostgresServer {
 public:
  // The binary's server, started on the first call. Unavailable saying why
  // where PostgreSQL is not installed or does not start (the tests skip
  // with it, unless HPTUNE_EXPECT names "postgresql").
  static absl::StatusOr<PostgresServer*> Shared();

  // A new, empty database: its store URL ("postgresql:///NAME?host=...").
  absl::StatusOr<std::string> NewDatabase();
  // The URL of database `name` on this server.
  std::string Url(const std::string& name) const;
  // The directory of its socket and data.
  const std::string& dir() const { return dir_; }

  ~PostgresServer();

  // Starts a server in `dir` (made when missing; one left there is stopped
  // first), or stops the one there and removes `dir`. A test server does not
  // fsync; a `durable` one (for benchmarks) keeps PostgreSQL's defaults.
  static absl::Status StartIn(const std::string& dir, bool durable = false);
  static void StopIn(const std::string& dir);
  // A new database `name` on the server listening in `dir`, kept until that
  // server stops: its store URL. For tests in other languages, which get it
  // from `postgres_server database` (Unavailable when none listens there).
  static absl::StatusOr<std::string> CreateDatabaseIn(const std::string& dir,
                                                      const std::string& name);

 private:
  PostgresServer() = default;

  std::string dir_;     // Holds the socket, data/ and the server's log.
  bool owned_ = false;  // Started by this process, so stopped by it.
  Mutex mu_;
  std::vector<std::string> databases_ ABSL_GUARDED_BY(mu_);
};

// Ends, from another session, every session of `url`'s database that holds
// an hptune runner lease (its advisory lock): what the database does to a
// partitioned client. How many it ended; -1 when it could not ask.
int EndRunnerLeaseSessions(const std::string& url);
// Ends the session that holds job `job_id`'s lock (a shared server's hold
// on the job it runs): that server, alone, partitioned. How many it ended;
// -1 when it could not ask.
int EndJobHolderSessions(const std::string& url, const std::string& job_id);

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_POSTGRES_SERVER_H_
