"""Line-delimited JSON over TCP: one request line, one response line.

Requests are {"op": ..., ...}; responses are {"ok": true, ...} or
{"ok": false, "error": "..."}. Every request is idempotent, so the client
simply resends after reconnecting: replicas start together (the server may
not listen yet) and a restarted parameter server comes back on the same
address.
"""

import json
import socket
import sys
import time

from trainer.cluster import split_address


class RemoteError(RuntimeError):
    """The server understood the request and refused it; retrying won't help."""


class Client:
    """A persistent connection to one server, reconnecting as needed.

    `outage_seconds` bounds how long one call keeps retrying while the server
    is unreachable; after that the call raises ConnectionError and the replica
    exits non-zero, so the launcher restarts it. Not thread-safe.
    """

    def __init__(self, address, outage_seconds=60.0, who="client"):
        self.address = address
        self._endpoint = split_address(address)
        self._outage_seconds = outage_seconds
        self._who = who
        self._socket = None
        self._reader = None
        self._connections = 0

    def call(self, request, response_timeout=30.0):
        deadline = time.monotonic() + self._outage_seconds
        delay = 0.01
        line = (json.dumps(request) + "\n").encode()
        while True:
            try:
                if self._socket is None:
                    self._connect(response_timeout)
                self._socket.sendall(line)
                reply = self._reader.readline()
                if not reply:
                    raise ConnectionError("connection closed by %s" %
                                          self.address)
                break
            except OSError as e:  # ConnectionError and socket.timeout included
                self.close()
                if time.monotonic() + delay > deadline:
                    raise ConnectionError(
                        "%s: %s unreachable for %g s (last error: %s)"
                        % (self._who, self.address, self._outage_seconds, e))
                time.sleep(delay)
                delay = min(delay * 2, 0.25)
        response = json.loads(reply)
        if not response.get("ok"):
            raise RemoteError("%s: %s refused %s: %s" %
                              (self._who, self.address, request.get("op"),
                               response.get("error")))
        return response

    def close(self):
        if self._reader is not None:
            self._reader.close()
        if self._socket is not None:
            self._socket.close()
        self._socket = None
        self._reader = None

    def _connect(self, response_timeout):
        sock = socket.create_connection(self._endpoint,
                                        timeout=response_timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._socket = sock
        self._reader = sock.makefile("rb")
        if self._connections:
            print("%s: reconnected to %s" % (self._who, self.address),
                  file=sys.stderr, flush=True)
        self._connections += 1
