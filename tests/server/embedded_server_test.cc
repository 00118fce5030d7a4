// server::HptuneServer started by an embedding program, in this process:
// it serves only with a token, unless the embedder says
// allow_unauthenticated (operations.md).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "hptune/v1/study_service.grpc.pb.h"
#include "src/server/server.h"
#include "tests/testing/run_process.h"

namespace hptune::server {
namespace {

ServerOptions Options(const std::string& dir) {
  ServerOptions options;
  options.env = &DefaultEnv();
  options.listen_address = "127.0.0.1:0";
  options.db_path = dir + "/hptune.db";
  options.state_dir = dir + "/runs";
  return options;
}

// ListStudies on `server` without any authorization metadata.
grpc::Status ListWithoutToken(const HptuneServer& server) {
  auto stub = v1::StudyService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()),
                          grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  v1::ListStudiesRequest request;
  v1::ListStudiesResponse reply;
  return stub->ListStudies(&context, request, &reply);
}

TEST(EmbeddedServerTest, WithoutATokenItStartsOnlyIfUnauthenticatedIsSaid) {
  const std::string dir = testing::MakeTempDir();
  auto refused = HptuneServer::Start(Options(dir));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(),
            "no token: a server runs programs for whoever submits a job, so "
            "every call must be authenticated (give a token)");
  // Refused before anything was opened.
  EXPECT_FALSE(std::filesystem::exists(dir + "/hptune.db"));

  ServerOptions unauthenticated = Options(dir);
  unauthenticated.allow_unauthenticated = true;
  auto open = HptuneServer::Start(std::move(unauthenticated));
  ASSERT_TRUE(open.ok()) << open.status();
  grpc::Status listed = ListWithoutToken(**open);
  EXPECT_TRUE(listed.ok()) << listed.error_message();
}

TEST(EmbeddedServerTest, WithATokenACallWithoutItIsUnauthenticated) {
  const std::string dir = testing::MakeTempDir();
  ServerOptions options = Options(dir);
  options.token = "embedder-token";
  auto server = HptuneServer::Start(std::move(options));
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ(ListWithoutToken(**server).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

}  // namespace
}  // namespace hptune::server
