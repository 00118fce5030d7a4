"""A fake hptune server, run as another user by the peer-check tests
(tests/integration/client_peer_check_test.cc, python/tests/test_peer_check.py).

Usage: fake_server.py tcp|PATH [identity]
Listens on 127.0.0.1 (a free port) or the Unix socket PATH and prints
"ready PORT" (0 for a socket). Each connection gets an empty HTTP/2 SETTINGS
frame, so that a gRPC client goes on to send its call, headers and all,
and what it sent is printed as "got HEX", one line per connection. With
"identity" it answers as an identity socket would, "token evil".
"""

import select
import socket
import sys
import time

SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def main() -> None:
    where = sys.argv[1]
    identity = sys.argv[2:] == ["identity"]
    if where == "tcp":
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(where)
    server.listen(8)
    port = server.getsockname()[1] if where == "tcp" else 0
    print("ready", port, flush=True)
    while True:
        connection, _ = server.accept()
        connection.sendall(b"token evil\n" if identity else SETTINGS)
        received = b""
        deadline = time.monotonic() + 2
        while not identity and time.monotonic() < deadline:
            readable, _, _ = select.select([connection], [], [], 0.1)
            if readable:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                received += chunk
        print("got", received.hex(), flush=True)
        connection.close()


if __name__ == "__main__":
    main()
