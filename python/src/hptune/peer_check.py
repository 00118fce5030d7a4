"""Whom the client talks to before it sends a token (docs/operations.md,
"Who may submit jobs"), as the CLI does (src/cli/client/peer_check.h).

A fake socket, or a listener on the server's port while the server
restarts, would otherwise get the token of whoever calls. The client trusts
root, its own user and the user named by ``server_user``
(``$HPTUNE_SERVER_USER``). On a ``unix:`` address the socket file's owner
and the listening process (``SO_PEERCRED``, which the kernel fills in) must
be one of them; on a loopback ``HOST:PORT`` without TLS, the owner of the
listening socket on that port (``/proc/net/tcp``, ``tcp6``). With TLS over
TCP the CA pins the server. Used by connection.py; thread-safe.
"""

import ipaddress
import os
import pwd
import socket
import struct
from typing import Iterable, List, Optional

_LISTEN = "0A"


def _name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return ""


def describe_uid(uid: int) -> str:
    """``uid 65534 (nobody)``."""
    name = _name(uid)
    return f"uid {uid} ({name})" if name else f"uid {uid}"


def parse_server_user(value: str, source: str) -> int:
    """A user name or uid; ValueError naming ``source`` otherwise."""
    if value.isdigit():
        return int(value)
    try:
        return pwd.getpwnam(value).pw_uid
    except KeyError:
        raise ValueError(f"{source}: {value!r} is neither a user of this "
                         "machine nor a uid") from None


class TrustedPeers:
    """Root, this process's user, and ``server_user``."""

    def __init__(self, server_user: Optional[int] = None) -> None:
        self.self = os.geteuid()
        self.server_user = server_user

    def trusts(self, uid: int) -> bool:
        return uid in (0, self.self, self.server_user)

    def describe(self) -> str:
        text = ("root (you)" if self.self == 0 else
                f"root or you ({describe_uid(self.self)})")
        if self.server_user not in (None, 0, self.self):
            text += f" or the server_user {describe_uid(self.server_user)}"
        return text

    def refusal(self, where: str, holder: str, uid: int) -> ValueError:
        name = _name(uid) or str(uid)
        return PeerRefused(
            f"refusing to talk to {where}: {holder} {describe_uid(uid)}, "
            f"not {self.describe()}; another user may be posing as the "
            "server (say, while it restarts). If that user runs your "
            f"server, pass server_user={name!r} (or set "
            "$HPTUNE_SERVER_USER)")


class PeerRefused(ValueError):
    """The process at the server's address is not trusted with the token."""


def check_unix_peer(sock: socket.socket, path: str,
                    trusted: TrustedPeers) -> None:
    """The peer of ``sock``, connected to ``path``, must be trusted."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                            struct.calcsize("3i"))
    pid, uid, _ = struct.unpack("3i", creds)
    if not trusted.trusts(uid):
        raise trusted.refusal(
            f"unix:{path}",
            f"the process listening there (pid {pid}) runs as", uid)


def _check_socket_file(path: str, trusted: TrustedPeers) -> None:
    # lstat: a link is judged by its target's owner.
    try:
        info = os.lstat(path)
        target = path
        if os.path.islink(path):
            target = os.path.realpath(path)
            info = os.lstat(target)
    except OSError:
        return  # Nothing there to talk to.
    if not trusted.trusts(info.st_uid):
        raise trusted.refusal(f"unix:{path}",
                              f"the socket file {target} belongs to",
                              info.st_uid)


def _check_unix_server(path: str, trusted: TrustedPeers) -> bool:
    _check_socket_file(path, trusted)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(path)
        except OSError:
            return False
        check_unix_peer(probe, path, trusted)
    return True


def _loopback_port(address: str) -> Optional[int]:
    for prefix in ("dns:///", "ipv4:", "ipv6:"):
        if address.startswith(prefix):
            address = address[len(prefix):]
    host, _, port = address.rpartition(":")
    if not port.isdigit():
        return None
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if host == "localhost":
        return int(port)
    try:
        return int(port) if ipaddress.ip_address(host).is_loopback else None
    except ValueError:
        return None


def _reached_from_loopback(hex_address: str) -> bool:
    # The kernel prints each 32-bit word of the address with %08X.
    words = [hex_address[i:i + 8] for i in range(0, len(hex_address), 8)]
    raw = b"".join(struct.pack("=I", int(word, 16)) for word in words)
    address = ipaddress.ip_address(raw)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return address.is_unspecified or address.is_loopback


def _listener_uids(tables: Iterable[str], port: int) -> List[int]:
    uids = []
    for table in tables:
        try:
            with open(table, encoding="ascii") as f:
                lines = f.read().splitlines()[1:]
        except FileNotFoundError:
            if table.endswith("6"):
                continue  # No IPv6 here.
            raise
        for line in lines:
            fields = line.split()
            address, _, hex_port = fields[1].partition(":")
            if (fields[3] == _LISTEN and int(hex_port, 16) == port
                    and _reached_from_loopback(address)):
                uids.append(int(fields[7]))
    return uids


def check_server_peer(address: str, tls: bool,
                      trusted: TrustedPeers) -> bool:
    """Raises PeerRefused when whoever listens at ``address`` is not
    trusted; True when a trusted one listens (or TLS pins it), False when
    nothing does (the call fails on its own; check again before the next)."""
    if address.startswith("unix:"):
        path = address[len("unix:"):]
        return _check_unix_server(path[2:] if path.startswith("//") else path,
                                  trusted)
    port = None if tls else _loopback_port(address)
    if port is None:
        return True
    try:
        uids = _listener_uids(("/proc/net/tcp", "/proc/net/tcp6"), port)
    except OSError as e:
        raise PeerRefused(f"refusing to send a token to {address}: cannot "
                          f"tell who listens on port {port} ({e}); talk "
                          "TLS with tls_ca") from None
    for uid in uids:
        if not trusted.trusts(uid):
            raise trusted.refusal(address,
                                  f"port {port} is listened on by", uid)
    return bool(uids)
