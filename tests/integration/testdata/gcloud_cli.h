// The real gcloud (google-cloud-cli) pointed at `hptune serve --rest`: a
// configuration directory of its own whose endpoint overrides for AI
// Platform (ml) and Vertex AI (aiplatform) name the server's REST port and
// whose access token is the server's. Used by the REST gateway's tests
// (rest_gcloud_test, rest_vertex_gcloud_test), which skip when FindGcloud
// finds none. Not thread-safe (one per test).
#ifndef HPTUNE_TESTS_INTEGRATION_TESTDATA_GCLOUD_CLI_H_
#define HPTUNE_TESTS_INTEGRATION_TESTDATA_GCLOUD_CLI_H_

#include <chrono>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune::testing {

// gcloud's path on $PATH, or "" when it is not installed.
std::string FindGcloud();

// The REST port from serve's "REST API on SCHEME://127.0.0.1:P/v1/" line
// (waits for it); 0 when it never comes.
int RestPort(const ServeProcess& server, std::string_view scheme = "http");

class Gcloud {
 public:
  // How the endpoints and token are given: gcloud's CLOUDSDK_SECTION_NAME
  // variables, or `gcloud config set` as docs/rest.md shows (six calls of
  // most of a CPU-second each, so one test per API does it).
  enum class Setup { kEnvironment, kConfigSet };
  // Its configuration under `dir`/gcloud, project p1.
  Gcloud(const std::string& dir, int port, Setup setup = Setup::kEnvironment);

  // gcloud ARGS --quiet.
  ProcessResult Run(std::vector<std::string> args) const;
  // gcloud ARGS --format=json, parsed (discarded when it fails).
  nlohmann::json Json(std::vector<std::string> args) const;
  // gcloud ARGS --format=json (a describe), once the resource it reads has
  // a "state" in `states`: that is waited for (up to `timeout`) with GETs
  // of `path` over plain HTTP, as a poll loop of gcloud calls would take
  // the machine's CPU from the tests beside it.
  nlohmann::json JsonOnceIn(std::vector<std::string> args,
                            const std::string& path,
                            const std::set<std::string>& states,
                            std::chrono::seconds timeout) const;

 private:
  std::string config_dir_;
  int port_;
  // NAME=VALUE settings every call gets.
  std::vector<std::string> env_;
};

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_INTEGRATION_TESTDATA_GCLOUD_CLI_H_
