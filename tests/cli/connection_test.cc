#include "src/cli/client/connection.h"

#include <fstream>
#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/cli/client/rpc_errors.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::cli::client {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

ParsedArgs Args(const std::vector<std::string>& argv) {
  auto parsed = ParseArgs(argv, ConnectionFlags(), {});
  EXPECT_OK(parsed);
  return *parsed;
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = testing::MakeTempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr char kPem[] =
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

TEST(ConnectionOptionsTest, DefaultsToLoopbackWithoutTokenOrTls) {
  auto options = ResolveConnectionOptions(DefaultEnv(), Args({}), FakeEnv({}));
  ASSERT_OK(options);
  EXPECT_EQ(options->address, "127.0.0.1:7460");
  EXPECT_TRUE(options->token.empty());
  EXPECT_TRUE(options->tls_ca_pem.empty());
  EXPECT_EQ(options->timeout, std::chrono::seconds(30));
}

TEST(ConnectionOptionsTest, EnvironmentIsUsedWhenNoFlagIsGiven) {
  const std::string ca = WriteFile("ca.pem", kPem);
  auto options =
      ResolveConnectionOptions(DefaultEnv(), Args({}),
                               FakeEnv({{"HPTUNE_SERVER", "host:1"},
                                        {"HPTUNE_TOKEN", " s3cret\n"},
                                        {"HPTUNE_TLS_CA", ca}}));
  ASSERT_OK(options);
  EXPECT_EQ(options->address, "host:1");
  EXPECT_EQ(options->token, "s3cret");
  EXPECT_EQ(options->tls_ca_pem, kPem);
}

TEST(ConnectionOptionsTest, FlagsWinOverTheEnvironment) {
  const std::string token = WriteFile("token", "from-file\n");
  auto options = ResolveConnectionOptions(
      DefaultEnv(),
      Args({"--server", "other:2", "--token-file", token, "--timeout", "1.5"}),
      FakeEnv({{"HPTUNE_SERVER", "host:1"}, {"HPTUNE_TOKEN", "from-env"}}));
  ASSERT_OK(options);
  EXPECT_EQ(options->address, "other:2");
  EXPECT_EQ(options->token, "from-file");
  EXPECT_EQ(options->timeout, std::chrono::milliseconds(1500));
}

TEST(ConnectionOptionsTest, BadValuesNameTheFlagAndValue) {
  const std::string dir = testing::MakeTempDir();
  const std::string empty_token = WriteFile("token", " \n");
  const std::string not_pem = WriteFile("ca.pem", "hello");
  struct Case {
    std::vector<std::string> argv;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--server="}, "--server: expected HOST:PORT, got \"\""},
      {{"--server", "127.0.0.1:"},
       "--server: expected HOST:PORT, got \"127.0.0.1:\""},
      {{"--server", "localhost:99999"},
       "--server: expected HOST:PORT, got \"localhost:99999\""},
      {{"--token-file", dir + "/none"},
       "--token-file: cannot read \"" + dir + "/none\""},
      {{"--token-file", empty_token},
       "--token-file: \"" + empty_token + "\" holds no token"},
      {{"--tls-ca", not_pem},
       "--tls-ca: \"" + not_pem + "\" holds no PEM certificate"},
      {{"--timeout", "0"},
       "--timeout: expected seconds in (0, 86400], got "
       "\"0\""},
      {{"--timeout", "soon"},
       "--timeout: expected seconds in (0, 86400], got \"soon\""},
  };
  for (const Case& c : cases) {
    auto options =
        ResolveConnectionOptions(DefaultEnv(), Args(c.argv), FakeEnv({}));
    ASSERT_FALSE(options.ok()) << c.argv[0];
    EXPECT_THAT(options,
                StatusIs(absl::StatusCode::kInvalidArgument, c.message));
  }
}

TEST(ConnectionOptionsTest, GrpcTargetUrisArePassedOn) {
  auto options = ResolveConnectionOptions(
      DefaultEnv(), Args({"--server", "unix:/tmp/s"}), FakeEnv({}));
  ASSERT_OK(options);
  EXPECT_EQ(options->address, "unix:/tmp/s");
}

TEST(ConnectionOptionsTest, ABadServerFromTheEnvironmentNamesTheVariable) {
  auto options = ResolveConnectionOptions(
      DefaultEnv(), Args({}), FakeEnv({{"HPTUNE_SERVER", "nohost"}}));
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().message(),
            "HPTUNE_SERVER: expected HOST:PORT, got \"nohost\"");
}

TEST(ConnectionOptionsTest, AnUnreadableCaFromTheEnvironmentNamesTheVariable) {
  auto options = ResolveConnectionOptions(
      DefaultEnv(), Args({}),
      FakeEnv({{"HPTUNE_TLS_CA", "/nonexistent/ca.pem"}}));
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().message(),
            "HPTUNE_TLS_CA: cannot read \"/nonexistent/ca.pem\"");
}

TEST(PrepareContextTest, UnaryCallsGetTheTimeoutAndStreamsNone) {
  testing::FakeEnv env;
  ConnectionOptions options;
  options.env = &env;
  options.timeout = std::chrono::seconds(2);
  grpc::ClientContext unary;
  PrepareContext(options, /*streaming=*/false, unary);
  EXPECT_EQ(unary.deadline(), std::chrono::system_clock::time_point(
                                  env.Now() + std::chrono::seconds(2)));
  grpc::ClientContext stream;
  PrepareContext(options, /*streaming=*/true, stream);
  EXPECT_EQ(stream.deadline(), std::chrono::system_clock::time_point::max());
}

TEST(RpcErrorsTest, ExitCodesFollowTheStatusCode) {
  EXPECT_EQ(ExitCodeForRpc(grpc::Status::OK), 0);
  EXPECT_EQ(ExitCodeForRpc({grpc::StatusCode::INVALID_ARGUMENT, ""}), 2);
  EXPECT_EQ(ExitCodeForRpc({grpc::StatusCode::ALREADY_EXISTS, ""}), 2);
  EXPECT_EQ(ExitCodeForRpc({grpc::StatusCode::NOT_FOUND, ""}), 3);
  EXPECT_EQ(ExitCodeForRpc({grpc::StatusCode::UNAVAILABLE, ""}), 69);
  EXPECT_EQ(ExitCodeForRpc({grpc::StatusCode::DEADLINE_EXCEEDED, ""}), 75);
  EXPECT_EQ(ExitCodeForRpc({grpc::StatusCode::UNAUTHENTICATED, ""}), 77);
  EXPECT_EQ(ExitCodeForRpc({grpc::StatusCode::FAILED_PRECONDITION, ""}), 1);
  EXPECT_EQ(ExitCodeForStatus(absl::NotFoundError("x")), 3);
  EXPECT_EQ(ExitCodeForStatus(absl::UnavailableError("x")), 69);
}

TEST(RpcErrorsTest, UnreachableServerSaysHowToStartOne) {
  const std::string message = DescribeRpcError(
      {grpc::StatusCode::UNAVAILABLE, "failed to connect to all addresses"},
      {.address = "127.0.0.1:7460", .tls = false, .connected = false});
  EXPECT_THAT(message,
              HasSubstr("no hptune server reachable at 127.0.0.1:7460 (start "
                        "one with `hptune serve`, or pass --server)"));
  EXPECT_THAT(message, HasSubstr("failed to connect to all addresses"));
}

TEST(RpcErrorsTest, ATlsMismatchSuggestsTheOtherTransport) {
  EXPECT_THAT(
      DescribeRpcError({grpc::StatusCode::UNAVAILABLE, "Socket closed"},
                       {.address = "h:1", .tls = false}),
      HasSubstr("; tried plaintext: if the server uses --tls-cert, pass "
                "--tls-ca"));
  EXPECT_THAT(
      DescribeRpcError({grpc::StatusCode::UNAVAILABLE, "Ssl handshake failed"},
                       {.address = "h:1", .tls = true}),
      HasSubstr("; tried TLS (--tls-ca): is the server using --tls-cert?"));
  EXPECT_THAT(
      DescribeRpcError({grpc::StatusCode::UNAVAILABLE, "Connection refused"},
                       {.address = "h:1", .tls = false}),
      Not(HasSubstr("tried")));
}

TEST(RpcErrorsTest, UnavailableFromAConnectedServerIsNotCalledUnreachable) {
  const std::string message =
      DescribeRpcError({grpc::StatusCode::UNAVAILABLE, "store busy"},
                       {.address = "h:1", .tls = false, .connected = true});
  EXPECT_EQ(message, "the server at h:1 is unavailable, try again: store busy");
}

TEST(RpcErrorsTest, RefusedTokenSaysWhatWasSentAndWhoseTokenItIs) {
  EXPECT_EQ(DescribeRpcError({grpc::StatusCode::UNAUTHENTICATED, "bad token"},
                             {.address = "h:1"}),
            "the server at h:1 refused the call: bad token (no token sent; "
            "jobs run as the user who started the server: ask them for its "
            "token, pass it with --token-file or $HPTUNE_TOKEN, or run your "
            "own `hptune serve`)");
  EXPECT_THAT(
      DescribeRpcError({grpc::StatusCode::UNAUTHENTICATED, "bad token"},
                       {.address = "h:1", .token_source = "$HPTUNE_TOKEN"}),
      HasSubstr("(sent the token from $HPTUNE_TOKEN; jobs run as"));
}

TEST(RpcErrorsTest, OtherErrorsKeepTheServersMessage) {
  EXPECT_EQ(DescribeRpcError({grpc::StatusCode::NOT_FOUND, "no job \"x\""},
                             {.address = "h:1"}),
            "no job \"x\"");
  EXPECT_EQ(
      DescribeRpcError({grpc::StatusCode::INTERNAL, ""}, {.address = "h:1"}),
      "INTERNAL");
}

}  // namespace
}  // namespace hptune::cli::client
