// The ctest fixture's side of PostgresServer: `postgres_server start DIR`
// starts the server every test process then shares, `stop DIR` stops it and
// removes DIR. Where PostgreSQL cannot start, start says why and exits 0:
// each test then tries its own server, and skips or fails saying why
// (tests/testing/expected.h).
#include <iostream>
#include <string>

#include "tests/testing/postgres_server.h"

int main(int argc, char** argv) {
  const std::string verb = argc == 3 ? argv[1] : "";
  if (verb == "stop") {
    hptune::testing::PostgresServer::StopIn(argv[2]);
    return 0;
  }
  if (verb != "start") {
    std::cerr << "usage: postgres_server start|stop DIR\n";
    return 2;
  }
  const absl::Status started =
      hptune::testing::PostgresServer::StartIn(argv[2]);
  if (!started.ok()) std::cerr << "postgres_server: " << started << "\n";
  return 0;
}
