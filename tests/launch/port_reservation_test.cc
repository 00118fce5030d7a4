// Tests of port reservation: real free ports on 127.0.0.1, outside the
// kernel's ephemeral range, never the same port to two live reservations of
// this process.
#include "src/launch/local/port_reservation.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::hptune_testing::StatusHasCode;

bool CanListenOn(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
            listen(fd, 1) == 0;
  close(fd);
  return ok;
}

TEST(PortReservationTest, PortsAreDistinctAndFree) {
  auto reservation = PortReservation::Reserve(5);
  ASSERT_OK(reservation);
  const std::vector<int>& ports = (*reservation)->ports();
  ASSERT_EQ(ports.size(), 5u);
  EXPECT_EQ(std::set<int>(ports.begin(), ports.end()).size(), 5u);
  for (int port : ports) {
    EXPECT_GT(port, 0);
    EXPECT_LT(port, 65536);
    EXPECT_TRUE(CanListenOn(port)) << port;
  }
}

// The kernel gives ports of net.ipv4.ip_local_port_range to sockets that do
// not name one (srun's, outgoing connections): a reserved port from there
// could be taken before the replica binds it.
TEST(PortReservationTest, PortsLieOutsideTheKernelsEphemeralRange) {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0, high = 0;
  ASSERT_TRUE(in >> low >> high);
  auto reservation = PortReservation::Reserve(50);
  ASSERT_OK(reservation);
  for (int port : (*reservation)->ports()) {
    EXPECT_TRUE(port < low || port > high)
        << port << " is in the ephemeral range " << low << "-" << high;
    EXPECT_GE(port, 1024);
  }
}

TEST(PortReservationTest, LiveReservationsNeverShareAPortAndReleaseOnDestroy) {
  const int before = PortReservation::ReservedCount();
  std::mutex mutex;
  std::vector<std::unique_ptr<PortReservation>> live;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        auto reservation = PortReservation::Reserve(3);
        ASSERT_OK(reservation);
        std::lock_guard<std::mutex> lock(mutex);
        live.push_back(*std::move(reservation));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<int> all;
  for (const auto& reservation : live) {
    all.insert(reservation->ports().begin(), reservation->ports().end());
  }
  EXPECT_EQ(all.size(), 300u);
  EXPECT_EQ(PortReservation::ReservedCount(), before + 300);
  live.clear();
  EXPECT_EQ(PortReservation::ReservedCount(), before);
}

TEST(PortReservationTest, ZeroPortsIsAnEmptyReservation) {
  auto reservation = PortReservation::Reserve(0);
  ASSERT_OK(reservation);
  EXPECT_TRUE((*reservation)->ports().empty());
}

TEST(PortReservationTest, UnbindableAddressIsUnavailable) {
  // 192.0.2.1 (TEST-NET-1) is no address of this machine.
  auto reservation = PortReservation::Reserve(1, "192.0.2.1");
  ASSERT_THAT(reservation, StatusHasCode(absl::StatusCode::kUnavailable));
  EXPECT_EQ(reservation.status().message(),
            "cannot reserve a port on 192.0.2.1: Cannot assign requested "
            "address");
}

}  // namespace
}  // namespace hptune::launch
