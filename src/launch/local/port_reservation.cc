#include "src/launch/local/port_reservation.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/mutex.h"
#include "src/env/scoped_fd.h"

namespace hptune::launch {
namespace {

// Probes per wanted port before giving up; the range probed is thousands of
// ports wide, so hitting this means something is wrong.
constexpr int kTriesPerPort = 64;

// The ports the kernel gives bind(port 0) and connect() on its own
// (net.ipv4.ip_local_port_range); Linux's default where `text` is not two
// ordered numbers.
PortRange EphemeralRange(std::string_view text) {
  PortRange range{32768, 60999};
  std::istringstream in{std::string(text)};
  PortRange read;
  if (in >> read.low >> read.high && read.low <= read.high) range = read;
  return range;
}

// The ports this process's reservations hold, and the draws of ports to
// probe, seeded by the first reservation's Env. Never destroyed, so a
// reservation may still end while the process exits.
struct ReservedPorts {
  Mutex mutex;
  std::set<int> ports ABSL_GUARDED_BY(mutex);
  std::minstd_rand draw ABSL_GUARDED_BY(mutex);
  bool seeded ABSL_GUARDED_BY(mutex) = false;
};
ReservedPorts& Reserved() {
  static ReservedPorts* const reserved = new ReservedPorts();
  return *reserved;
}

// Binds a new socket to `port` on `address` (0: the kernel's choice) and
// keeps it open, so that a later probe of this reservation gets another
// port. The port bound, or 0 when `port` is in use.
absl::StatusOr<int> Probe(const in_addr& address, const std::string& host,
                          int port, std::vector<ScopedFd>& open) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot reserve a port: socket: ", strerror(errno)));
  }
  open.emplace_back(fd);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr = address;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t length = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (port != 0 && (errno == EADDRINUSE || errno == EACCES)) return 0;
    return absl::UnavailableError(
        absl::StrCat("cannot reserve a port on ", host, ": ", strerror(errno)));
  }
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot reserve a port on ", host, ": ", strerror(errno)));
  }
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace

// The kernel gives the ports outside its ephemeral range to no socket that
// does not name them, so a reserved port stays free between its
// reservation and the replica's bind: srun's sockets and outgoing
// connections take ephemeral ports.
PortRange ReservableRange(std::string_view ip_local_port_range) {
  const PortRange ephemeral = EphemeralRange(ip_local_port_range);
  const PortRange below{std::max(1024, ephemeral.low - 16384),
                        ephemeral.low - 1};
  const PortRange above{ephemeral.high + 1, 65535};
  if (below.size() >= 1024) return below;
  if (above.size() >= 1024) return above;
  return PortRange{};
}

absl::StatusOr<std::unique_ptr<PortReservation>> PortReservation::Reserve(
    Env& env, int count, const std::string& host) {
  in_addr address{};
  if (inet_pton(AF_INET, host.c_str(), &address) != 1) {
    address.s_addr = htonl(INADDR_ANY);
  }
  // The machine's range, read once: unreadable, Linux's default.
  static const PortRange range = ReservableRange(
      env.ReadFile("/proc/sys/net/ipv4/ip_local_port_range").value_or(""));
  std::vector<ScopedFd> open;
  std::vector<int> ports;
  ReservedPorts& reserved = Reserved();
  MutexLock lock(&reserved.mutex);
  if (!reserved.seeded) {
    reserved.draw.seed(static_cast<std::minstd_rand::result_type>(
        env.RandomSeed() % std::minstd_rand::modulus));
    reserved.seeded = true;
  }
  std::uniform_int_distribution<int> in_range(range.low, range.high);
  for (int tries = 0; static_cast<int>(ports.size()) < count; ++tries) {
    if (tries >= kTriesPerPort * count) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot reserve ", count, " ports on ", host, ": ", tries,
          " probes found only ", ports.size(), " free and not reserved"));
    }
    const int wanted = range.size() > 0 ? in_range(reserved.draw) : 0;
    absl::StatusOr<int> port = Probe(address, host, wanted, open);
    if (!port.ok()) return port.status();
    if (*port == 0 || reserved.ports.count(*port) > 0) continue;
    bool duplicate = false;
    for (int p : ports) duplicate = duplicate || p == *port;
    if (!duplicate) ports.push_back(*port);
  }
  reserved.ports.insert(ports.begin(), ports.end());
  return std::unique_ptr<PortReservation>(
      new PortReservation(std::move(ports)));
}

PortReservation::~PortReservation() {
  ReservedPorts& reserved = Reserved();
  MutexLock lock(&reserved.mutex);
  for (int port : ports_) reserved.ports.erase(port);
}

int PortReservation::ReservedCount() {
  ReservedPorts& reserved = Reserved();
  MutexLock lock(&reserved.mutex);
  return static_cast<int>(reserved.ports.size());
}

}  // namespace hptune::launch
