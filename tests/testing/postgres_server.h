// A real PostgreSQL server for tests, started by the test binary itself:
// initdb in a temporary directory and `pg_ctl start` listening only on a
// Unix socket there (no TCP port), run as an unprivileged user when the
// tests run as root (initdb refuses root), with trust authentication: the
// socket sits in a private 0700 directory. One server per test binary,
// started on first use and stopped at exit; each test takes a database of
// its own (NewDatabase). Used by the PostgresStore tests. Thread-safe.
#ifndef HPTUNE_TESTS_TESTING_POSTGRES_SERVER_H_
#define HPTUNE_TESTS_TESTING_POSTGRES_SERVER_H_

#include <string>

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

 private:
  PostgresServer() = default;
  absl::Status Start();

  std::string bin_;  // initdb, pg_ctl.
  std::string dir_;  // Holds the socket, data/ and the server's log.
  bool started_ = false;
  Mutex mu_;
  int databases_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_POSTGRES_SERVER_H_
