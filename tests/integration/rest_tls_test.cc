// `hptune serve --rest` over HTTPS with the gRPC port's --tls-cert and
// --tls-key, and its Host check (DNS rebinding), against a real server: a
// client that trusts the certificate lists jobs, a plaintext one gets
// nothing, and a request naming another host gets Google's 403 (without
// TLS an address off loopback is refused: rest_gcloud_test's RestFlagTest).
#include <httplib.h>

#include <chrono>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/testdata/gcloud_cli.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::ServeProcess;

// serve's "REST API on https://127.0.0.1:P/v1/" line's port; 0 when it
// never comes.
httplib::Headers Bearer(const std::string& host) {
  httplib::Headers headers = {
      {"Authorization", "Bearer " + testing::DefaultToken()}};
  if (!host.empty()) headers.emplace("Host", host);
  return headers;
}

TEST(RestTlsTest, ServesHttpsWithTheGrpcCertificateAndChecksTheHost) {
  const std::string dir = testing::MakeTempDir();
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  testing::ProcessResult made = testing::RunProcess(
      {"/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
       "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
       "-days", "1", "-subj", "/CN=localhost", "-addext",
       "subjectAltName=IP:127.0.0.1,DNS:localhost"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ServeProcess server(dir, {"--tls-cert", cert, "--tls-key", key, "--rest",
                            "127.0.0.1:0", "--http", "off"});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const int port = testing::RestPort(server, "https");
  ASSERT_GT(port, 0) << server.Output();

  httplib::SSLClient tls("127.0.0.1", port);
  tls.set_ca_cert_path(cert.c_str());
  tls.enable_server_certificate_verification(true);
  httplib::Result listed = tls.Get("/v1/projects/p1/jobs", Bearer(""));
  ASSERT_TRUE(listed) << httplib::to_string(listed.error());
  EXPECT_EQ(listed->status, 200) << listed->body;

  httplib::Result rebound =
      tls.Get("/v1/projects/p1/jobs", Bearer("attacker.example:443"));
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  const nlohmann::json reply = nlohmann::json::parse(rebound->body);
  EXPECT_EQ(reply["error"]["status"], "PERMISSION_DENIED");
  EXPECT_EQ(reply["error"]["message"],
            "this Host header does not name this server");

  httplib::Client plain("127.0.0.1", port);
  httplib::Result cleartext = plain.Get("/v1/projects/p1/jobs", Bearer(""));
  EXPECT_TRUE(!cleartext || cleartext->status != 200);
}

}  // namespace
}  // namespace hptune
