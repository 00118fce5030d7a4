// Free TCP ports for the replicas of a trial.
//
// LocalLauncher::Reserve and SlurmLauncher::Reserve take one port per
// replica server. Ports are drawn at random from below the kernel's
// ephemeral range (net.ipv4.ip_local_port_range; above it where below has
// too few), and a port is free when binding to it works. The kernel hands
// ports from there to no socket that does not ask for them by number, so
// srun's sockets and outgoing connections cannot take a reserved port
// before the replica binds it. A process-wide set remembers the ports given
// to live reservations and they are never given twice while a reservation
// holds them (another program can still bind one by number in between: the
// trainer's bind is the final word). Thread-safe. Internal to the launch
// module.
#ifndef HPTUNE_SRC_LAUNCH_LOCAL_PORT_RESERVATION_H_
#define HPTUNE_SRC_LAUNCH_LOCAL_PORT_RESERVATION_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::launch {

// Ports [low, high], both included; empty when high < low.
struct PortRange {
  int low = 0;
  int high = -1;
  int size() const { return high - low + 1; }
};

// Where reservations come from, given the text of
// /proc/sys/net/ipv4/ip_local_port_range ("32768\t60999\n"; Linux's
// default where it is not two ordered numbers): the 16,384 ports below the
// ephemeral range (or as many as lie above 1023), else those above it, never
// a port of the range itself. Empty (the kernel picks, bind(port 0)) when
// neither side has 1,024 ports.
PortRange ReservableRange(std::string_view ip_local_port_range);

class PortReservation {
 public:
  // `count` distinct free ports on `host` (an IPv4 address; another host
  // name probes the wildcard address). ResourceExhausted when the kernel
  // keeps offering ports that are already reserved; Unavailable when no
  // socket can be bound. The machine's ephemeral range is read, and the
  // draw of ports to probe seeded, through the first call's `env`.
  static absl::StatusOr<std::unique_ptr<PortReservation>> Reserve(
      Env& env, int count, const std::string& host = "127.0.0.1");
  ~PortReservation();
  PortReservation(const PortReservation&) = delete;
  PortReservation& operator=(const PortReservation&) = delete;

  const std::vector<int>& ports() const { return ports_; }

  // Ports held by live reservations of this process.
  static int ReservedCount();

 private:
  explicit PortReservation(std::vector<int> ports) : ports_(std::move(ports)) {}
  std::vector<int> ports_;
};

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_LOCAL_PORT_RESERVATION_H_
