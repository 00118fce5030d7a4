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
#include <sstream>
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
  auto reservation = PortReservation::Reserve(DefaultEnv(), 5);
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
  auto reservation = PortReservation::Reserve(DefaultEnv(), 50);
  ASSERT_OK(reservation);
  for (int port : (*reservation)->ports()) {
    EXPECT_TRUE(port < low || port > high)
        << port << " is in the ephemeral range " << low << "-" << high;
    EXPECT_GE(port, 1024);
  }
}

// The range's edges, from ip_local_port_range's text: the port just below
// the first ephemeral one is reservable, the first ephemeral one never.
TEST(PortReservationTest, TheRangeEndsJustBelowTheFirstEphemeralPort) {
  const PortRange linux_default = ReservableRange("32768\t60999\n");
  EXPECT_EQ(linux_default.low, 32768 - 16384);
  EXPECT_EQ(linux_default.high, 32767);
  EXPECT_EQ(linux_default.size(), 16384);
  // Another range moves both edges with it; port 1024 is the floor.
  const PortRange moved = ReservableRange("20000 30000");
  EXPECT_EQ(moved.low, 3616);
  EXPECT_EQ(moved.high, 19999);
  const PortRange floored = ReservableRange("10000 60999");
  EXPECT_EQ(floored.low, 1024);
  EXPECT_EQ(floored.high, 9999);
  // Exactly 1,024 ports below (1024..2047) is still enough.
  const PortRange just_enough = ReservableRange("2048 60999");
  EXPECT_EQ(just_enough.low, 1024);
  EXPECT_EQ(just_enough.high, 2047);
}

// Below the range has 1,023 ports (1024..2046): the range above it is
// used, from the port after the last ephemeral one.
TEST(PortReservationTest, AboveTheRangeWhereBelowHasTooFew) {
  const PortRange above = ReservableRange("2047 60999");
  EXPECT_EQ(above.low, 61000);
  EXPECT_EQ(above.high, 65535);
  const PortRange narrow = ReservableRange("1100 64511");
  EXPECT_EQ(narrow.low, 64512);
  EXPECT_EQ(narrow.high, 65535);
  // 1,023 on either side: none; the kernel picks.
  EXPECT_EQ(ReservableRange("2047 64512").size(), 0);
}

// Text that is not two ordered numbers stands for Linux's default range.
TEST(PortReservationTest, AnUnreadableRangeIsLinuxsDefault) {
  for (const char* text : {"", "60999 32768", "abc", "32768"}) {
    const PortRange range = ReservableRange(text);
    EXPECT_EQ(range.low, 16384) << text;
    EXPECT_EQ(range.high, 32767) << text;
  }
}

// What Reserve draws lies in the range this machine's file gives.
TEST(PortReservationTest, ReservedPortsComeFromTheReservableRange) {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  std::stringstream text;
  text << in.rdbuf();
  const PortRange range = ReservableRange(text.str());
  ASSERT_GT(range.size(), 0) << text.str();
  auto reservation = PortReservation::Reserve(DefaultEnv(), 20);
  ASSERT_OK(reservation);
  for (int port : (*reservation)->ports()) {
    EXPECT_GE(port, range.low);
    EXPECT_LE(port, range.high);
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
        auto reservation = PortReservation::Reserve(DefaultEnv(), 3);
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
  auto reservation = PortReservation::Reserve(DefaultEnv(), 0);
  ASSERT_OK(reservation);
  EXPECT_TRUE((*reservation)->ports().empty());
}

TEST(PortReservationTest, UnbindableAddressIsUnavailable) {
  // 192.0.2.1 (TEST-NET-1) is no address of this machine.
  auto reservation = PortReservation::Reserve(DefaultEnv(), 1, "192.0.2.1");
  ASSERT_THAT(reservation, StatusHasCode(absl::StatusCode::kUnavailable));
  EXPECT_EQ(reservation.status().message(),
            "cannot reserve a port on 192.0.2.1: Cannot assign requested "
            "address");
}

}  // namespace
}  // namespace hptune::launch
