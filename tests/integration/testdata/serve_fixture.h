// Test helper: a real `hptune serve` process on 127.0.0.1 with a free port,
// and gRPC stubs to reach it. Used by tests/integration/serve_*_test.cc.
//
// The server is started with --listen 127.0.0.1:0 and, unless `extra` has
// --socket or --users-file, --allow-root-trials; the port it bound is
// read from its "listening on port N" line (polled with a deadline). Its
// stdout and stderr go to files in the test's directory, shown when a test
// fails. Not thread-safe; one per test.
#ifndef HPTUNE_TESTS_INTEGRATION_TESTDATA_SERVE_FIXTURE_H_
#define HPTUNE_TESTS_INTEGRATION_TESTDATA_SERVE_FIXTURE_H_

#include <grpcpp/grpcpp.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hptune/v1/job_service.grpc.pb.h"
#include "hptune/v1/study_service.grpc.pb.h"

namespace hptune::testing {

class ServeProcess {
 public:
  // `dir` holds the database (hptune.db, unless `extra` gives --db), the
  // state dir (runs/, unless `extra` gives --state-dir) and logs.
  explicit ServeProcess(std::string dir, std::vector<std::string> extra = {});
  ~ServeProcess();  // SIGKILLs a server still running.

  // Starts the server and waits (up to `timeout`) for its port. False, with
  // the reason in `error`, when it exits or does not listen in time.
  bool Start(std::string* error,
             std::chrono::seconds timeout = std::chrono::seconds(30));
  // Sends `signal`; with wait, collects it and returns its exit code
  // (-1 when a signal killed it).
  int Stop(int signal, bool wait = true);
  // Waits up to `timeout` for the server to exit by itself: its exit code
  // (-1 when a signal killed it), or nullopt when it still ran (then
  // SIGKILLed).
  std::optional<int> WaitForExit(std::chrono::seconds timeout);

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  std::string address() const;
  const std::string& dir() const { return dir_; }
  std::string db() const { return dir_ + "/hptune.db"; }
  // The state dir: runs/ in `dir`, unless `extra` gives --state-dir (as
  // servers sharing one database on one machine share theirs).
  std::string runs_dir() const;
  // Everything the server printed so far (stdout then stderr).
  std::string Output() const;

  std::unique_ptr<v1::StudyService::Stub> StudyStub() const;
  std::unique_ptr<v1::JobService::Stub> JobStub() const;

 private:
  std::string dir_;
  std::vector<std::string> extra_;
  pid_t pid_ = -1;
  int port_ = 0;
  int launches_ = 0;
};

// The token of servers started without --token-file: the one in the
// default token file, $HPTUNE_CONFIG_DIR/token (ctest sets
// HPTUNE_CONFIG_DIR for every test; see cmake/HptuneHelpers.cmake). "" when
// no server made it yet.
std::string DefaultToken();

// A client context with a deadline and a bearer token: DefaultToken()
// unless `token` is given ("" for none).
std::unique_ptr<grpc::ClientContext> Context(
    const std::optional<std::string>& token = std::nullopt,
    std::chrono::seconds deadline = std::chrono::seconds(30));

// Job `job_id`'s state as `server` answers GetJob; STATE_UNSPECIFIED when
// the call fails (the server is down, the job unknown).
v1::Job::State JobStateOf(const ServeProcess& server,
                          const std::string& job_id);

// Pids of live processes whose environment holds an HPTUNE_REPLICA marker
// under `dir` (a test's runs directory): trainers nobody stopped.
std::set<pid_t> ReplicasUnder(const std::string& dir);

// Polls `done` every 20 ms until it returns true or `timeout` passes.
bool PollUntil(const std::function<bool()>& done,
               std::chrono::milliseconds timeout);

std::string ReadFileOrEmpty(const std::string& path);
// How many times `needle` occurs in `text` (overlaps counted).
int CountOccurrences(const std::string& text, const std::string& needle);

// Path of the hptune binary and the source tree (compile definitions).
std::string HptuneBinary();
std::string SourceDir();

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_INTEGRATION_TESTDATA_SERVE_FIXTURE_H_
