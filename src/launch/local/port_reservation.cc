#include "src/launch/local/port_reservation.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/mutex.h"

namespace hptune::launch {
namespace {

// Probes per wanted port before giving up; the kernel's ephemeral range is
// thousands of ports wide, so hitting this means something is wrong.
constexpr int kTriesPerPort = 64;

// The ports this process's reservations hold. Never destroyed, so a
// reservation may still end while the process exits.
struct ReservedPorts {
  Mutex mutex;
  std::set<int> ports ABSL_GUARDED_BY(mutex);
};
ReservedPorts& Reserved() {
  static ReservedPorts* const reserved = new ReservedPorts();
  return *reserved;
}

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  Socket& operator=(Socket&&) = delete;

 private:
  int fd_;
};

// Binds a new socket to port 0 on `address`; the kernel's choice, with the
// socket kept open so the next probe gets another port.
absl::StatusOr<int> Probe(const in_addr& address, const std::string& host,
                          std::vector<Socket>& open) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot reserve a port: socket: ", strerror(errno)));
  }
  open.emplace_back(fd);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr = address;
  addr.sin_port = 0;
  socklen_t length = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot reserve a port on ", host, ": ", strerror(errno)));
  }
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PortReservation>> PortReservation::Reserve(
    int count, const std::string& host) {
  in_addr address{};
  if (inet_pton(AF_INET, host.c_str(), &address) != 1) {
    address.s_addr = htonl(INADDR_ANY);
  }
  std::vector<Socket> open;
  std::vector<int> ports;
  ReservedPorts& reserved = Reserved();
  MutexLock lock(&reserved.mutex);
  for (int tries = 0; static_cast<int>(ports.size()) < count; ++tries) {
    if (tries >= kTriesPerPort * count) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot reserve ", count, " ports on ", host, ": ", tries,
          " probes found only ", ports.size(), " not already reserved"));
    }
    absl::StatusOr<int> port = Probe(address, host, open);
    if (!port.ok()) return port.status();
    if (reserved.ports.count(*port) > 0) continue;
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
