"""The connection to an ``hptune serve``: address, token, TLS, deadlines.

Used by Client (client.py) and the study and job objects it hands out.
Options follow the ``hptune`` CLI's (docs/cli.md, "Server"), each argument
before its environment variable before its default:

- server: ``$HPTUNE_SERVER``, else ``unix:/run/hptune/hptune.sock`` when
  that socket exists (a server shared by this machine's users), else
  ``127.0.0.1:7460``; ``HOST:PORT`` or a gRPC target such as
  ``unix:/path``.
- token: the token itself; or token_file; else ``$HPTUNE_TOKEN``; else, on
  a ``unix:`` server with an identity socket beside it (``PATH.identity``),
  this user's own token from it (the kernel tells the server who asks);
  else the file ``hptune serve`` made for this user
  (``$HPTUNE_CONFIG_DIR/token``,
  else ``$XDG_CONFIG_HOME/hptune/token``, else ``~/.config/hptune/token``),
  none when that file does not exist. Sent as ``authorization: Bearer``.
- tls_ca: a PEM file of root certificates (``$HPTUNE_TLS_CA``); without
  one the channel is plaintext, which a server only accepts on loopback.
- server_user: a user (name or uid) trusted with the token besides root and
  this one (``$HPTUNE_SERVER_USER``). Before the first call, and again
  after a call found the server gone, the process at the address is checked
  (peer_check.py); one of another user raises FailedPrecondition and is sent
  nothing.

A Connection is thread-safe (gRPC channels are); it must not cross a
fork(): a worker process opens its own (Study.optimize does).
"""

import os
import random
import socket
import stat
import time
from typing import Any, Callable, Iterator, Optional, Tuple, TypeVar

import grpc

from hptune import errors
from hptune.leases import LeaseKeeper
from hptune.peer_check import (PeerRefused, TrustedPeers, check_server_peer,
                               check_unix_peer, parse_server_user)
from hptune.v1 import job_service_pb2_grpc, study_service_pb2_grpc

DEFAULT_SERVER = "127.0.0.1:7460"
SHARED_SOCKET = "/run/hptune/hptune.sock"
_IDENTITY_TIMEOUT_SECONDS = 10.0
DEFAULT_TIMEOUT_SECONDS = 30.0
_MAX_TOKEN_BYTES = 4096
_MAX_TLS_CA_BYTES = 1 << 20
# Messages of a study's trials with measurements can be large.
_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
_MAX_RECONNECT_BACKOFF_MS = 1000

T = TypeVar("T")


def default_token_file() -> Optional[str]:
    """The user's default token file, or None when no base directory is set."""
    if os.environ.get("HPTUNE_CONFIG_DIR"):
        return os.path.join(os.environ["HPTUNE_CONFIG_DIR"], "token")
    if os.environ.get("XDG_CONFIG_HOME"):
        return os.path.join(os.environ["XDG_CONFIG_HOME"], "hptune", "token")
    if os.environ.get("HOME"):
        return os.path.join(os.environ["HOME"], ".config", "hptune", "token")
    return None


def _read_token_file(path: str, what: str) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_TOKEN_BYTES + 1)
    except OSError as e:
        raise ValueError(f"{what}: cannot read {path!r}: {e.strerror}") from None
    if len(data) > _MAX_TOKEN_BYTES:
        raise ValueError(f"{what}: {path!r} is over {_MAX_TOKEN_BYTES} bytes")
    token = data.decode("utf-8", "replace").strip()
    if not token:
        raise ValueError(f"{what}: {path!r} holds no token")
    return token


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def _socket_path(server: str) -> Optional[str]:
    """The path of a ``unix:`` target, or None for any other."""
    if not server.startswith("unix:"):
        return None
    path = server[len("unix:"):]
    return path[2:] if path.startswith("//") else path


def ask_identity_socket(grpc_socket: str,
                        trusted: Optional[TrustedPeers] = None
                        ) -> Optional[str]:
    """This user's token from the identity socket beside ``grpc_socket``
    (src/server/identity_socket.h), or None when there is none. PeerRefused,
    having read nothing, when the process listening there is not
    ``trusted`` (its answer would choose whom this user's calls act as)."""
    path = grpc_socket + ".identity"
    if not _is_socket(path):
        return None
    answer = b""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(_IDENTITY_TIMEOUT_SECONDS)
            s.connect(path)
            check_unix_peer(s, path, trusted or TrustedPeers())
            while len(answer) < 4096:
                chunk = s.recv(512)
                if not chunk:
                    break
                answer += chunk
    except OSError as e:
        raise ValueError(f"identity socket {path!r}: {e}") from None
    line = answer.decode("utf-8", "replace").strip()
    if line.startswith("token "):
        return line[len("token "):]
    if line.startswith("error "):
        raise ValueError(f"identity socket {path!r}: {line[len('error '):]}")
    raise ValueError(f"identity socket {path!r} gave no token")


def resolve_token(token: Optional[str],
                  token_file: Optional[str],
                  server: str = DEFAULT_SERVER,
                  trusted: Optional[TrustedPeers] = None) -> Tuple[str, str]:
    """(token, where it came from); token "" when there is none."""
    if token is not None and token_file is not None:
        raise ValueError("give token or token_file, not both")
    if token is not None:
        if not token.strip():
            raise ValueError("token: empty")
        return token.strip(), "the token argument"
    if token_file is not None:
        return (_read_token_file(token_file, "token_file"),
                f"token_file {token_file!r}")
    if "HPTUNE_TOKEN" in os.environ:
        return os.environ["HPTUNE_TOKEN"].strip(), "$HPTUNE_TOKEN"
    grpc_socket = _socket_path(server)
    if grpc_socket is not None:
        own = ask_identity_socket(grpc_socket, trusted)
        if own is not None:
            return own, f"the identity socket of {server}"
    path = default_token_file()
    if path is None or not os.path.exists(path):
        return "", f"no token (no default token file {path!r})"
    return (_read_token_file(path, "the default token file"),
            f"the default token file {path!r}")


def _check_server(server: str, what: str) -> str:
    if not server or any(c.isspace() for c in server) or len(server) > 1024:
        raise ValueError(f"{what}: {server!r} is not HOST:PORT or a gRPC "
                         "target")
    if ":" not in server:
        raise ValueError(f"{what}: {server!r} has no port (HOST:PORT)")
    return server


class Connection:
    """One channel to a server, with its token and deadline."""

    def __init__(self, server: Optional[str] = None, *,
                 token: Optional[str] = None,
                 token_file: Optional[str] = None,
                 tls_ca: Optional[str] = None,
                 timeout: float = DEFAULT_TIMEOUT_SECONDS,
                 server_user: Optional[str] = None) -> None:
        if server is not None:
            self.server = _check_server(server, "server")
        elif os.environ.get("HPTUNE_SERVER"):
            self.server = _check_server(os.environ["HPTUNE_SERVER"],
                                        "$HPTUNE_SERVER")
        elif _is_socket(SHARED_SOCKET):
            self.server = "unix:" + SHARED_SOCKET
        else:
            self.server = DEFAULT_SERVER
        if not 0 < timeout <= 86400:
            raise ValueError(f"timeout: {timeout!r} is not in (0, 86400] "
                             "seconds")
        self.timeout = float(timeout)
        if server_user is not None:
            self._trusted = TrustedPeers(
                parse_server_user(str(server_user), "server_user"))
        elif os.environ.get("HPTUNE_SERVER_USER"):
            self._trusted = TrustedPeers(parse_server_user(
                os.environ["HPTUNE_SERVER_USER"], "$HPTUNE_SERVER_USER"))
        else:
            self._trusted = TrustedPeers()
        # Whether the process at self.server was found trusted since the
        # last call that found the server gone.
        self._peer_checked = False
        self._token, self._token_source = resolve_token(
            token, token_file, self.server, self._trusted)
        if tls_ca is None and os.environ.get("HPTUNE_TLS_CA"):
            tls_ca = os.environ["HPTUNE_TLS_CA"]
        self.tls = tls_ca is not None
        self._options = dict(token=token, token_file=token_file,
                             tls_ca=tls_ca, timeout=timeout,
                             server_user=server_user)
        channel_options = [
            ("grpc.max_receive_message_length", _MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", _MAX_MESSAGE_BYTES),
            # A restarted server is seen within a second: gRPC's own
            # reconnect backoff grows to 120 s, past retry_unavailable's
            # 5 s between tries.
            ("grpc.max_reconnect_backoff_ms", _MAX_RECONNECT_BACKOFF_MS),
        ]
        if tls_ca is not None:
            try:
                with open(tls_ca, "rb") as f:
                    roots = f.read(_MAX_TLS_CA_BYTES + 1)
            except OSError as e:
                raise ValueError(f"tls_ca: cannot read {tls_ca!r}: "
                                 f"{e.strerror}") from None
            if len(roots) > _MAX_TLS_CA_BYTES:
                raise ValueError(f"tls_ca: {tls_ca!r} is over "
                                 f"{_MAX_TLS_CA_BYTES} bytes")
            if b"-----BEGIN CERTIFICATE-----" not in roots:
                raise ValueError(f"tls_ca: {tls_ca!r} holds no PEM "
                                 "certificate")
            self._channel = grpc.secure_channel(
                self.server, grpc.ssl_channel_credentials(roots),
                channel_options)
        else:
            self._channel = grpc.insecure_channel(self.server, channel_options)
        self.studies = study_service_pb2_grpc.StudyServiceStub(self._channel)
        self.jobs = job_service_pb2_grpc.JobServiceStub(self._channel)
        # The heartbeat of the trials this program holds (leases.py).
        self.leases = LeaseKeeper(self)

    def options(self) -> dict:
        """The arguments that open an equal connection (picklable: a worker
        process opens its own with ``Connection(**options)``)."""
        return dict(self._options, server=self.server)

    def close(self) -> None:
        self.leases.close()
        self._channel.close()

    def _metadata(self) -> Tuple[Tuple[str, str], ...]:
        if not self._token:
            return ()
        return (("authorization", f"Bearer {self._token}"),)

    def _hint(self, error: grpc.RpcError) -> str:
        code = error.code()
        if code == grpc.StatusCode.UNAUTHENTICATED:
            return f"sent {self._token_source}"
        if code == grpc.StatusCode.UNAVAILABLE:
            if self.tls:
                return f"no hptune server answered TLS at {self.server}"
            return (f"no hptune server answered at {self.server} (tried "
                    "plaintext: if the server uses --tls-cert, pass tls_ca)")
        return ""

    def _check_peer(self, method: Any) -> None:
        """Before a call carries the token: whoever listens at self.server
        must be trusted (peer_check.py). Checked again after the server was
        found gone, since another user's process may take its place."""
        if self._peer_checked:
            return
        try:
            self._peer_checked = check_server_peer(self.server, self.tls,
                                                   self._trusted)
        except PeerRefused as e:
            raise errors.FailedPrecondition(str(e),
                                            _method_name(method)) from None

    def _failed(self, error: grpc.RpcError, method: Any) -> Exception:
        if error.code() in (grpc.StatusCode.UNAVAILABLE,
                            grpc.StatusCode.CANCELLED):
            self._peer_checked = False
        return errors.from_rpc_error(error, _method_name(method),
                                     self._hint(error))

    def call(self, method: Callable[..., T], request: Any,
             timeout: Optional[float] = None) -> T:
        """Calls a unary method of self.studies or self.jobs."""
        self._check_peer(method)
        try:
            return method(request, timeout=timeout or self.timeout,
                          metadata=self._metadata())
        except grpc.RpcError as e:
            raise self._failed(e, method) from None

    def stream(self, method: Callable[..., Iterator[T]], request: Any,
               timeout: Optional[float] = None) -> Iterator[T]:
        """Calls a server-streaming method, with no deadline unless
        ``timeout``. Close the returned generator (or let it be collected)
        to cancel the call."""
        self._check_peer(method)
        call = method(request, timeout=timeout, metadata=self._metadata())
        try:
            for item in call:
                yield item
        except grpc.RpcError as e:
            raise self._failed(e, method) from None
        finally:
            call.cancel()


def _method_name(method: Any) -> str:
    # Multicallables keep the full path as bytes in _method.
    name = getattr(method, "_method", b"")
    if isinstance(name, bytes):
        name = name.decode()
    return name.replace("/hptune.v1.", "")


def retry_unavailable(attempt: Callable[[], T], window: float) -> T:
    """attempt(), retried with exponential back-off with jitter (0.1 s up to
    5 s between tries) while it raises Unavailable or Cancelled, for up to
    ``window`` seconds; then the last of them is raised. A server that
    restarts (drain, crash, upgrade) comes back within the window. A drain
    cancels the calls it has not answered by its deadline, and this client
    cancels no unary call of its own, so Cancelled here is the server
    going away."""
    deadline = time.monotonic() + window
    delay = 0.1
    while True:
        try:
            return attempt()
        except (errors.Unavailable, errors.Cancelled):
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            time.sleep(min(left, delay * random.uniform(0.5, 1.0)))
            delay = min(delay * 2, 5.0)
