// Whom the client sends its token to, decided on what an Env shows: the
// owners of loopback listeners (/proc/net/tcp) and of a Unix socket's file.
// Another user's listener or socket needs no second user here: the Env
// says who owns them.
#include "src/cli/client/peer_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "hptune/env/env_wrapper.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/status_matchers.h"

namespace hptune::cli::client {
namespace {

using ::hptune_testing::IsOk;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

// 127.0.0.1:8080 listened on by uid 4242 (the kernel's words in hex).
constexpr char kTable[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
    "retrnsmt   uid  timeout inode\n"
    "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 "
    "00000000  4242        0 12345 1 0000000000000000 100 0 0 10 0\n";

// The machine, but for /proc/net/tcp (`tcp`, unreadable when none) and no
// IPv6.
class ListenerTable : public EnvWrapper {
 public:
  explicit ListenerTable(std::optional<std::string> tcp)
      : EnvWrapper(DefaultEnv()), tcp_(std::move(tcp)) {}
  absl::StatusOr<std::string> ReadFile(
      const std::filesystem::path& path) override {
    if (path == "/proc/net/tcp") {
      if (tcp_) return *tcp_;
      return absl::PermissionDeniedError("cannot open /proc/net/tcp");
    }
    if (path == "/proc/net/tcp6") return absl::NotFoundError("no IPv6");
    return EnvWrapper::ReadFile(path);
  }

 private:
  std::optional<std::string> tcp_;
};

TEST(PeerCheckTest, AnotherUsersLoopbackListenerGetsNoToken) {
  ListenerTable env(kTable);
  EXPECT_THAT(CheckServerPeer(env, "127.0.0.1:8080", /*tls=*/false,
                              TrustedPeers{.self = 1000}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("port 8080 is listened on by uid 4242")));
  EXPECT_THAT(CheckServerPeer(env, "localhost:8080", false,
                              TrustedPeers{.self = 1000, .server_user = 4242}),
              IsOk());
  EXPECT_THAT(
      CheckServerPeer(env, "127.0.0.1:8080", false, TrustedPeers{.self = 4242}),
      IsOk());
  // With TLS the CA pins the server.
  EXPECT_THAT(CheckServerPeer(env, "127.0.0.1:8080", /*tls=*/true,
                              TrustedPeers{.self = 1000}),
              IsOk());
  EXPECT_THAT(
      CheckServerPeer(env, "127.0.0.1:9090", false, TrustedPeers{.self = 1000}),
      IsOk());
}

TEST(PeerCheckTest, AnUnreadableListenerTableSendsNoToken) {
  ListenerTable env(std::nullopt);
  EXPECT_THAT(
      CheckServerPeer(env, "127.0.0.1:8080", false, TrustedPeers{.self = 1000}),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("/proc/net/tcp is unreadable")));
}

TEST(PeerCheckTest, ASocketFileOfAnotherUserGetsNoToken) {
  testing::FakeEnv env;
  env.uid = 4242;  // Whose FakeEnv's files are.
  ASSERT_OK(env.CreatePrivateDirectories("/run/hptune"));
  ASSERT_OK(env.WriteFileAtomically("/run/hptune/hptune.sock", ""));
  EXPECT_THAT(
      CheckServerPeer(env, "unix:/run/hptune/hptune.sock", false,
                      TrustedPeers{.self = 1000}),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("the socket file /run/hptune/hptune.sock belongs to "
                         "uid 4242")));
  EXPECT_EQ(TrustedPeersOf(env, std::nullopt).self, 4242u);
}

}  // namespace
}  // namespace hptune::cli::client
