"""The client checks whom it talks to before it sends a token
(docs/operations.md, "Who may submit jobs"): a fake server of another user
(nobody, through setpriv) on a loopback port, a Unix socket or its identity
socket is refused with FailedPrecondition naming the user, and gets no byte
of the token. Needs root, to become nobody; the real servers of the same
user are reached by the other suites."""

import os
import shutil
import subprocess
import tempfile

import pytest

import hptune
from conftest import SOURCE_DIR, poll_until, read

TOKEN = "token-of-the-administrator-0123456789"
NOBODY = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
          "--clear-groups"]


@pytest.fixture
def fake(monkeypatch):
    """start(args) runs tests/integration/testdata/fake_server.py as nobody
    and returns its port once it is ready; .received() is what it got."""
    if os.geteuid() != 0:
        if "root" in os.environ.get("HPTUNE_EXPECT", "").split(","):
            pytest.fail("HPTUNE_EXPECT names root, but this is not root")
        pytest.skip("root cannot be used here: only root can run a fake "
                    "server as nobody")
    monkeypatch.delenv("HPTUNE_SERVER_USER", raising=False)
    # Short (a socket's path has at most 107 bytes) and open to nobody.
    directory = tempfile.mkdtemp(prefix="hptune-fake-")
    os.chmod(directory, 0o755)
    script = os.path.join(directory, "fake_server.py")
    shutil.copy(os.path.join(SOURCE_DIR, "tests", "integration", "testdata",
                             "fake_server.py"), script)
    os.chmod(script, 0o644)
    sockets = os.path.join(directory, "nobodys")
    os.mkdir(sockets, 0o755)
    os.chown(sockets, 65534, 65534)
    out = os.path.join(directory, "fake.out")
    processes = []

    class Fake:
        socket = os.path.join(sockets, "hptune.sock")

        def start(self, *args: str) -> int:
            with open(out, "wb") as f:
                processes.append(subprocess.Popen(
                    NOBODY + ["/usr/bin/python3", script, *args], stdout=f,
                    stderr=subprocess.STDOUT))
            poll_until(lambda: read(out).startswith("ready "), 30,
                       "the fake server")
            return int(read(out).split()[1])

        def received(self) -> str:
            return read(out)

    yield Fake()
    for process in processes:
        process.kill()
        process.wait()
    shutil.rmtree(directory, ignore_errors=True)


def test_a_fake_on_a_loopback_port_gets_no_token(fake):
    port = fake.start("tcp")
    address = f"127.0.0.1:{port}"
    with pytest.raises(hptune.FailedPrecondition) as refused:
        hptune.Client(address, token=TOKEN, timeout=5).list_studies()
    message = refused.value.message
    assert f"refusing to talk to {address}: port {port}" in message
    assert "uid 65534 (nobody)" in message
    assert "server_user='nobody'" in message
    assert TOKEN.encode().hex() not in fake.received()

    # Trusted by name, the fake gets the call and the token: what the check
    # keeps from any other listener.
    with pytest.raises(hptune.HptuneError) as answered:
        hptune.Client(address, token=TOKEN, timeout=5,
                      server_user="nobody").list_studies()
    assert not isinstance(answered.value, hptune.FailedPrecondition)
    poll_until(lambda: TOKEN.encode().hex() in fake.received(), 30,
               "the token at the trusted fake")


def test_a_fake_unix_socket_gets_no_token(fake):
    fake.start(fake.socket)
    with pytest.raises(hptune.FailedPrecondition,
                       match=r"the socket file .* uid 65534 \(nobody\)"):
        hptune.Client("unix:" + fake.socket, token=TOKEN,
                      timeout=5).list_studies()
    # A socket file of root's, but nobody listens: the kernel says who.
    os.chown(fake.socket, 0, 0)
    with pytest.raises(hptune.FailedPrecondition,
                       match=r"the process listening there .* runs as uid "
                             r"65534 \(nobody\)"):
        hptune.Client("unix:" + fake.socket, token=TOKEN,
                      timeout=5).list_studies()
    assert TOKEN.encode().hex() not in fake.received()


def test_a_fake_identity_socket_is_not_asked_for_a_token(fake, monkeypatch):
    # No token given: the client would ask the identity socket beside the
    # gRPC one, and call with what a fake says.
    monkeypatch.delenv("HPTUNE_TOKEN", raising=False)
    monkeypatch.setenv("HPTUNE_CONFIG_DIR", "/nonexistent")
    fake.start(fake.socket + ".identity", "identity")
    with pytest.raises(hptune.FailedPrecondition,
                       match=r"\.identity: the process listening there .* "
                             r"uid 65534 \(nobody\)"):
        hptune.Client("unix:" + fake.socket, timeout=5)
