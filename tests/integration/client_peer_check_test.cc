// The CLI checks whom it talks to before it sends a token
// (docs/operations.md, "Who may submit jobs"): a fake server of another user
// (nobody, through setpriv) on a Unix socket, its identity socket, or a
// loopback port is refused, naming the user, and gets no byte of the token.
// Needs root, to become nobody. The real servers of the same user are
// reached in serve_auth_test and multi_user_test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ProcessResult;

constexpr uid_t kNobody = 65534;
constexpr char kToken[] = "token-of-the-administrator-0123456789";

class ClientPeerCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HPTUNE_SKIP_UNLESS_AVAILABLE(geteuid() == 0, "root",
                                 "only root can run a fake server as nobody");
    dir_ = testing::MakeTempDir();
    ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
    std::filesystem::copy_file(
        testing::SourceDir() + "/tests/integration/testdata/fake_server.py",
        dir_ + "/fake_server.py");
    ASSERT_EQ(chmod((dir_ + "/fake_server.py").c_str(), 0644), 0);
    // Where nobody makes its socket.
    ASSERT_EQ(mkdir(SocketDir().c_str(), 0755), 0);
    ASSERT_EQ(chown(SocketDir().c_str(), kNobody, kNobody), 0);
  }

  std::string SocketDir() const { return dir_ + "/nobodys"; }
  std::string FakeOut() const { return dir_ + "/fake.out"; }

  // Starts the fake as nobody; its port (0 on a Unix socket) once ready.
  int StartFake(std::vector<std::string> args) {
    std::vector<std::string> argv = {
        "/usr/bin/setpriv", "--reuid=65534",    "--regid=65534",
        "--clear-groups",   "/usr/bin/python3", dir_ + "/fake_server.py"};
    argv.insert(argv.end(), args.begin(), args.end());
    fake_ = testing::StartProcess(argv, FakeOut(), dir_ + "/fake.err");
    stop_ =
        std::make_unique<testing::StopOnExit>(fake_, std::chrono::seconds(1));
    int port = -1;
    testing::PollUntil(
        [&] {
          const std::string out = testing::ReadFileOrEmpty(FakeOut());
          if (!out.starts_with("ready ")) return false;
          port = std::stoi(out.substr(6));
          return true;
        },
        std::chrono::seconds(30));
    return port;
  }

  // What the fake received, hex, one "got" line per connection.
  std::string Received() const { return testing::ReadFileOrEmpty(FakeOut()); }

  ProcessResult Hptune(const std::string& server,
                       std::vector<std::string> env = {
                           absl::StrCat("HPTUNE_TOKEN=", kToken)}) const {
    env.insert(env.begin(), "HPTUNE_SERVER_USER");
    return testing::RunProcessWithEnv({testing::HptuneBinary(), "jobs", "list",
                                       "--server", server, "--timeout", "5"},
                                      env);
  }

  std::string dir_;
  pid_t fake_ = -1;
  std::unique_ptr<testing::StopOnExit> stop_;
};

const std::string kTokenHex = absl::BytesToHexString(kToken);

TEST_F(ClientPeerCheckTest, AFakeOnALoopbackPortGetsNoToken) {
  const int port = StartFake({"tcp"});
  ASSERT_GT(port, 0) << testing::ReadFileOrEmpty(dir_ + "/fake.err");
  const std::string address = absl::StrCat("127.0.0.1:", port);
  ProcessResult refused = Hptune(address);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err,
              AllOf(HasSubstr(absl::StrCat("refusing to talk to ", address)),
                    HasSubstr(absl::StrCat("port ", port)),
                    HasSubstr("uid 65534 (nobody)"), HasSubstr("root (you)"),
                    HasSubstr("--server-user nobody")));
  EXPECT_THAT(Received(), Not(HasSubstr(kTokenHex)));

  // Trusted by name, the fake gets the call and the token: what the check
  // keeps from any other listener.
  ProcessResult trusted = Hptune(
      address,
      {absl::StrCat("HPTUNE_TOKEN=", kToken), "HPTUNE_SERVER_USER=nobody"});
  EXPECT_NE(trusted.exit_code, 0);
  EXPECT_THAT(trusted.err, Not(HasSubstr("refusing")));
  EXPECT_TRUE(testing::PollUntil(
      [&] { return Received().find(kTokenHex) != std::string::npos; },
      std::chrono::seconds(30)))
      << Received();
}

TEST_F(ClientPeerCheckTest, AFakeUnixSocketGetsNoToken) {
  const std::string socket = SocketDir() + "/hptune.sock";
  ASSERT_EQ(StartFake({socket}), 0);
  ProcessResult refused = Hptune("unix:" + socket);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err,
              AllOf(HasSubstr(absl::StrCat("refusing to talk to unix:", socket,
                                           ": the socket file")),
                    HasSubstr("uid 65534 (nobody)")));

  // A socket file of root's, but nobody listens: the kernel says who.
  ASSERT_EQ(chown(socket.c_str(), 0, 0), 0);
  refused = Hptune("unix:" + socket);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err,
              AllOf(HasSubstr(absl::StrCat("refusing to talk to unix:", socket,
                                           ": the process listening there")),
                    HasSubstr("runs as uid 65534 (nobody)")));
  EXPECT_THAT(Received(), Not(HasSubstr(kTokenHex)));
}

TEST_F(ClientPeerCheckTest, ALinkToAFakeSocketIsJudgedByItsTarget) {
  const std::string socket = SocketDir() + "/hptune.sock";
  ASSERT_EQ(StartFake({socket}), 0);
  // A link root owns, in a directory root owns, to nobody's socket.
  const std::string link = dir_ + "/hptune.sock";
  std::filesystem::create_symlink(socket, link);
  ProcessResult refused = Hptune("unix:" + link);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, AllOf(HasSubstr("refusing to talk to unix:" + link),
                                 HasSubstr("uid 65534 (nobody)")));
  EXPECT_THAT(Received(), Not(HasSubstr(kTokenHex)));
}

TEST_F(ClientPeerCheckTest, AFakeIdentitySocketIsNotAskedForAToken) {
  // No token given: the client would ask the identity socket beside the
  // gRPC one, and call with what a fake says.
  const std::string socket = SocketDir() + "/hptune.sock";
  ASSERT_EQ(StartFake({socket + ".identity", "identity"}), 0);
  ProcessResult refused = Hptune(
      "unix:" + socket, {"HPTUNE_TOKEN", "HPTUNE_CONFIG_DIR=" + dir_ + "/no"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err,
              AllOf(HasSubstr(absl::StrCat("refusing to talk to unix:", socket,
                                           ".identity")),
                    HasSubstr("uid 65534 (nobody)")));
}

}  // namespace
}  // namespace hptune
