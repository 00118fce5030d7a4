// The client's side of the identity socket (src/cli/client/identity.h), on a
// real Unix socket this test listens on and answers: the token line, the
// server's refusal, and, through an Env whose wait runs out at once, a server
// that never answers, without waiting out its 10 seconds.
#include "src/cli/client/identity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "hptune/env/env_wrapper.h"
#include "src/env/scoped_fd.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::cli::client {
namespace {

using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

// A server's identity socket beside `grpc_socket`, listening; Answer sends
// one connection `line` and closes it.
class IdentityListener {
 public:
  explicit IdentityListener(const std::string& grpc_socket) {
    const std::string path = grpc_socket + ".identity";
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
    fd_.Reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    EXPECT_EQ(::bind(fd_.get(), reinterpret_cast<sockaddr*>(&address),
                     sizeof(address)),
              0);
    EXPECT_EQ(::listen(fd_.get(), 4), 0);
  }
  ~IdentityListener() {
    if (answering_.joinable()) answering_.join();
  }

  void Answer(std::string line) {
    answering_ = std::thread([this, line = std::move(line)] {
      // A client that never connects ends the test's wait, not the test.
      const int fds[] = {fd_.get()};
      absl::StatusOr<std::vector<int>> ready =
          DefaultEnv().PollReadable(fds, std::chrono::seconds(30));
      if (!ready.ok() || ready->empty()) return;
      const ScopedFd connection(::accept(fd_.get(), nullptr, nullptr));
      (void)DefaultEnv().Write(connection.get(), line);
    });
  }

 private:
  ScopedFd fd_;
  std::thread answering_;
};

// The machine, but every wait for an answer runs out at once; it keeps the
// timeout it was given.
class AnswerNeverComes : public EnvWrapper {
 public:
  AnswerNeverComes() : EnvWrapper(DefaultEnv()) {}
  absl::StatusOr<std::vector<int>> PollReadable(
      std::span<const int>,
      std::optional<std::chrono::microseconds> timeout) override {
    asked = timeout;
    return std::vector<int>{};
  }
  std::optional<std::chrono::microseconds> asked;
};

class IdentityTest : public ::testing::Test {
 protected:
  const std::string grpc_socket_ = testing::MakeTempDir() + "/hptune.sock";
  const TrustedPeers trusted_{.self = ::geteuid()};
};

TEST_F(IdentityTest, TheTokenLineGivesTheToken) {
  IdentityListener listener(grpc_socket_);
  listener.Answer("token abc123\n");
  EXPECT_THAT(AskIdentitySocket(DefaultEnv(), grpc_socket_, trusted_),
              IsOkAndHolds("abc123"));
}

TEST_F(IdentityTest, AnErrorLineIsTheServersRefusal) {
  IdentityListener listener(grpc_socket_);
  listener.Answer("error this server runs as uid 0 (root)\n");
  EXPECT_THAT(AskIdentitySocket(DefaultEnv(), grpc_socket_, trusted_),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr(".identity: this server runs as uid 0")));
}

TEST_F(IdentityTest, AServerThatNeverAnswersIsGivenTenSeconds) {
  IdentityListener listener(grpc_socket_);  // Listens; never accepts.
  AnswerNeverComes env;
  EXPECT_THAT(AskIdentitySocket(env, grpc_socket_, trusted_),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr(grpc_socket_ + ".identity did not answer")));
  EXPECT_EQ(env.asked, std::chrono::seconds(10));
}

TEST_F(IdentityTest, NoSocketIsNotFound) {
  EXPECT_THAT(
      AskIdentitySocket(DefaultEnv(), grpc_socket_, trusted_),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("no identity socket")));
}

}  // namespace
}  // namespace hptune::cli::client
