// Who may talk to `hptune serve`: bearer tokens, and the refusal to listen
// beyond loopback without TLS or a token.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/empty.pb.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using testing::ServeProcess;

grpc::Status ListStudies(const ServeProcess& server, const std::string& token) {
  v1::ListStudiesRequest request;
  v1::ListStudiesResponse reply;
  return server.StudyStub()->ListStudies(Context(token).get(), request, &reply);
}

TEST(ServeAuthTest, TokenIsRequiredAndChecked) {
  const std::string dir = testing::MakeTempDir();
  const std::string token_file = dir + "/token";
  std::ofstream(token_file) << "s3cret-token\n";
  ServeProcess server(dir, {"--token-file", token_file});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;

  grpc::Status none = ListStudies(server, "");
  EXPECT_EQ(none.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(none.error_message(),
            "this server needs a token: send the metadata \"authorization: "
            "Bearer <token>\"");

  grpc::Status wrong = ListStudies(server, "s3cret-tokem");
  EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(wrong.error_message(), "the token is not this server's token");
  // A prefix of the token is wrong too.
  EXPECT_EQ(ListStudies(server, "s3cret").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);

  // The job service is guarded the same way.
  v1::ListJobsRequest jobs;
  v1::ListJobsResponse listed;
  EXPECT_EQ(
      server.JobStub()->ListJobs(Context().get(), jobs, &listed).error_code(),
      grpc::StatusCode::UNAUTHENTICATED);
  v1::UpdateJobRequest update;
  update.set_job_id("any");
  update.set_clear_labels(true);
  v1::Job job;
  EXPECT_EQ(
      server.JobStub()->UpdateJob(Context().get(), update, &job).error_code(),
      grpc::StatusCode::UNAUTHENTICATED);

  // So are the reads of a study's results.
  v1::GetParameterImportanceRequest importance;
  importance.set_study("any");
  v1::ParameterImportanceResponse importances;
  EXPECT_EQ(
      server.StudyStub()
          ->GetParameterImportance(Context().get(), importance, &importances)
          .error_code(),
      grpc::StatusCode::UNAUTHENTICATED);

  grpc::Status right = ListStudies(server, "s3cret-token");
  EXPECT_TRUE(right.ok()) << right.error_message();
}

// Calls `method` ("/package.Service/Method") with an empty request and
// `authorization` as the metadata ("" for none), whatever the method's
// types: a refusal comes before the request is read.
grpc::Status CallWithAuthorization(const ServeProcess& server,
                                   const std::string& method,
                                   const std::string& authorization) {
  grpc::TemplatedGenericStub<google::protobuf::Empty, google::protobuf::Empty>
      stub(grpc::CreateChannel(server.address(),
                               grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  if (!authorization.empty()) {
    context.AddMetadata("authorization", authorization);
  }
  google::protobuf::Empty request, reply;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &reply,
                 [&done](grpc::Status status) { done.set_value(status); });
  return done.get_future().get();
}

// Every method the two services declare (read from their descriptors, so a
// method added later is covered), without the token, with another scheme
// and with another token.
TEST(ServeAuthTest, EveryJobAndStudyServiceMethodNeedsTheToken) {
  const std::string dir = testing::MakeTempDir();
  const std::string token_file = dir + "/token";
  std::ofstream(token_file) << "s3cret-token\n";
  ServeProcess server(dir, {"--token-file", token_file});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;

  std::vector<std::string> methods;
  for (const char* name : {"hptune.v1.JobService", "hptune.v1.StudyService"}) {
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            name);
    ASSERT_NE(service, nullptr) << name;
    for (int i = 0; i < service->method_count(); ++i) {
      methods.push_back("/" + std::string(name) + "/" +
                        std::string(service->method(i)->name()));
    }
  }
  ASSERT_GE(methods.size(), 20u);
  for (const std::string& method : methods) {
    for (const std::string& authorization :
         {std::string(), std::string("Basic s3cret-token"),
          std::string("Bearer s3cret-tokem")}) {
      EXPECT_EQ(
          CallWithAuthorization(server, method, authorization).error_code(),
          grpc::StatusCode::UNAUTHENTICATED)
          << method << " with \"" << authorization << "\"";
    }
    // With the token the call gets past the check (to the empty request's
    // error, or an answer).
    EXPECT_NE(CallWithAuthorization(server, method, "Bearer s3cret-token")
                  .error_code(),
              grpc::StatusCode::UNAUTHENTICATED)
        << method;
  }
}

TEST(ServeAuthTest, NonLoopbackListenWithoutTlsIsRefusedEvenWithAToken) {
  const std::string dir = testing::MakeTempDir();
  const std::string token_file = dir + "/token";
  std::ofstream(token_file) << "s3cret-token\n";
  testing::ProcessResult run = testing::RunProcess(
      {testing::HptuneBinary(), "serve", "--listen", "0.0.0.0:7460", "--db",
       dir + "/hptune.db", "--state-dir", dir + "/runs", "--gpus", "0",
       "--token-file", token_file});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "hptune serve: refusing to listen on \"0.0.0.0:7460\" without "
            "TLS: clients would send their token in the clear, and whoever "
            "read it could run programs on this machine; give --tls-cert and "
            "--tls-key, or listen on loopback (127.0.0.1:7460)\n");
  // Nothing was created: the check comes before the database is opened.
  EXPECT_FALSE(std::ifstream(dir + "/hptune.db").good());
}

TEST(ServeAuthTest, MissingTokenFileIsAnError) {
  const std::string dir = testing::MakeTempDir();
  testing::ProcessResult run =
      testing::RunProcess({testing::HptuneBinary(), "serve", "--token-file",
                           dir + "/none", "--db", dir + "/hptune.db"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "hptune serve: token file \"" + dir + "/none\": cannot be read\n");
}

TEST(ServeAuthTest, TlsServerMayListenBeyondLoopbackAndServesTls) {
  const std::string dir = testing::MakeTempDir();
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  testing::ProcessResult made = testing::RunProcess(
      {"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
       "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
       "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // 0.0.0.0 is refused without TLS (above); with it the server starts.
  ServeProcess server(
      dir, {"--tls-cert", cert, "--tls-key", key, "--listen", "0.0.0.0:0"});
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;

  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = testing::ReadFileOrEmpty(cert);
  auto stub = v1::StudyService::NewStub(
      grpc::CreateChannel(server.address(), grpc::SslCredentials(ssl)));
  v1::ListStudiesRequest request;
  v1::ListStudiesResponse reply;
  grpc::Status status = stub->ListStudies(Context().get(), request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  // A plaintext client cannot talk to it.
  EXPECT_FALSE(ListStudies(server, "").ok());
}

TEST(ServeStartupTest, SecondServerOnTheSamePortOrDatabaseIsRefused) {
  ServeProcess first(testing::MakeTempDir());
  std::string error;
  ASSERT_TRUE(first.Start(&error)) << error;

  const std::string dir = testing::MakeTempDir();
  testing::ProcessResult same_port = testing::RunProcess(
      {testing::HptuneBinary(), "serve", "--listen", first.address(), "--db",
       dir + "/hptune.db", "--gpus", "0"});
  EXPECT_EQ(same_port.exit_code, 1);
  // gRPC logs its own line about the bind first; ours is the last.
  const std::string message = "hptune serve: cannot listen on \"" +
                              first.address() +
                              "\" (address in use, or not an address of "
                              "this machine)\n";
  EXPECT_TRUE(same_port.err.ends_with(message)) << same_port.err;

  testing::ProcessResult same_db =
      testing::RunProcess({testing::HptuneBinary(), "serve", "--listen",
                           "127.0.0.1:0", "--db", first.db(), "--gpus", "0"});
  EXPECT_EQ(same_db.exit_code, 1);
  EXPECT_EQ(same_db.err, "hptune serve: database \"" + first.db() +
                             "\" is already served by another hptune serve "
                             "(lock file \"" +
                             first.db() +
                             ".serve-lock\"): a SQLite file has one server; "
                             "several servers share a postgresql:// store\n");
  // The first one is unharmed.
  v1::ListStudiesRequest request;
  v1::ListStudiesResponse reply;
  EXPECT_TRUE(
      first.StudyStub()->ListStudies(Context().get(), request, &reply).ok());
}

}  // namespace
}  // namespace hptune
