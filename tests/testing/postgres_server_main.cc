// The ctest fixture's side of PostgresServer: `postgres_server start DIR`
// starts the server every test process then shares (`--durable`: with
// PostgreSQL's fsync, for benchmarks), `stop DIR` stops it and removes DIR.
// Where PostgreSQL cannot start, start says why and exits 0: each test then
// tries its own server, and skips or fails saying why
// (tests/testing/expected.h). `database DIR NAME` makes a database on that
// server, kept until it stops, and prints its store URL: how the Python and
// browser tests get one; it exits 77 (ctest's and pytest's "skipped") when
// no server listens in DIR.
#include <iostream>
#include <string>

#include "tests/testing/postgres_server.h"

namespace {

constexpr int kSkipped = 77;

int Usage() {
  std::cerr << "usage: postgres_server start DIR [--durable]\n"
               "       postgres_server stop DIR\n"
               "       postgres_server database DIR NAME\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using hptune::testing::PostgresServer;
  const std::string verb = argc >= 3 ? argv[1] : "";
  if (verb == "database" && argc == 4) {
    absl::StatusOr<std::string> url =
        PostgresServer::CreateDatabaseIn(argv[2], argv[3]);
    if (!url.ok()) {
      std::cerr << "postgres_server: " << url.status() << "\n";
      return url.status().code() == absl::StatusCode::kUnavailable ? kSkipped
                                                                   : 1;
    }
    std::cout << *url << "\n";
    return 0;
  }
  const bool durable = argc == 4 && std::string(argv[3]) == "--durable";
  if (argc != 3 && !(verb == "start" && durable)) return Usage();
  if (verb == "stop") {
    PostgresServer::StopIn(argv[2]);
    return 0;
  }
  if (verb != "start") return Usage();
  const absl::Status started = PostgresServer::StartIn(argv[2], durable);
  if (!started.ok()) std::cerr << "postgres_server: " << started << "\n";
  return 0;
}
