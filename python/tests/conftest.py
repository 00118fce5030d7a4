"""Fixtures of the Python package's tests: a real `hptune serve` on a
loopback port, and a Client of it.

The hptune binary is $HPTUNE_BINARY (ctest sets it), else the source tree's
build/src/cli/hptune. Each server gets its own directory, database, state
directory and default token file ($HPTUNE_CONFIG_DIR), and is drained with
SIGTERM (SIGKILL after 30 s) at the end of its test.

A module this machine may lack (optuna) is imported with
import_or_skip(module, capability): it skips where the module is missing,
but fails where HPTUNE_EXPECT (comma-separated, .ci/run sets it) names the
capability, as tests/testing/expected.h does for the C++ tests. A run in
which every test skipped exits SKIPPED_EXIT_CODE (77), which ctest's
SKIP_RETURN_CODE shows as Skipped (tests/python/CMakeLists.txt), not as
Passed.
"""

import collections
import importlib
import os
import re
import signal
import subprocess
import sys
import time
from typing import Callable, List, Optional

import pytest

import hptune

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..",
                                          ".."))
HPTUNE = os.environ.get("HPTUNE_BINARY") or os.path.join(
    SOURCE_DIR, "build", "src", "cli", "hptune")
DATA = os.path.join(os.path.dirname(__file__), "data")
SKIPPED_EXIT_CODE = 77


def expected(capability: str) -> bool:
    """Whether HPTUNE_EXPECT says this machine has `capability`."""
    return capability in os.environ.get("HPTUNE_EXPECT", "").split(",")


def import_or_skip(module: str, capability: Optional[str] = None):
    """The module; skips without it, unless HPTUNE_EXPECT names
    `capability` (default: the module's name): then the test fails."""
    capability = capability or module
    if not expected(capability):
        return pytest.importorskip(
            module, reason=f"{module} cannot be imported here (HPTUNE_EXPECT "
                           f"does not name {capability})")
    try:
        return importlib.import_module(module)
    except ImportError as e:
        pytest.fail(f"HPTUNE_EXPECT names {capability}, but {module} cannot "
                    f"be imported: {e}", pytrace=False)


# Outcomes of this run's tests, a module skipped whole counting as skipped.
_outcomes: collections.Counter = collections.Counter()


def pytest_collectreport(report):
    if report.skipped:
        _outcomes["skipped"] += 1


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        _outcomes[report.outcome] += 1


def pytest_sessionfinish(session, exitstatus):
    """Every test skipped: exit 77, so ctest says Skipped, not Passed."""
    if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) \
            and _outcomes["skipped"] and not _outcomes["passed"] \
            and not _outcomes["failed"]:
        print(f"\nconftest: every test skipped: exit {SKIPPED_EXIT_CODE}")
        session.exitstatus = SKIPPED_EXIT_CODE


def poll_until(done: Callable[[], bool], timeout: float = 60.0,
               what: str = "the condition") -> None:
    """Polls `done` every 20 ms until it is true; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


def read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def trainer_environment() -> dict:
    """This environment, with this interpreter's directory first on PATH:
    trainers run `python3` from PATH, and this one has the package."""
    return dict(os.environ, PATH=os.path.dirname(sys.executable) +
                os.pathsep + os.environ.get("PATH", ""))


class Server:
    """One `hptune serve` process (not started until start())."""

    def __init__(self, directory: str, extra: Optional[List[str]] = None,
                 port: int = 0) -> None:
        self.dir = directory
        self.extra = list(extra or [])
        self.port = port
        self.process: Optional[subprocess.Popen] = None
        self.log = os.path.join(directory, "serve.log")
        self.config_dir = os.path.join(directory, "config")
        self.token_file = os.path.join(self.config_dir, "token")
        self.db = os.path.join(directory, "hptune.db")
        self.runs = os.path.join(directory, "runs")
        self.env = dict(trainer_environment(),
                        HPTUNE_CONFIG_DIR=self.config_dir)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def token(self) -> str:
        return read(self.token_file).strip()

    def start(self, timeout: float = 60.0) -> "Server":
        """Starts the server and waits for its "listening on port N" line
        (a restart waits for a new one)."""
        pattern = re.compile(r"listening on port (\d+)")
        before = len(pattern.findall(read(self.log)))
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [HPTUNE, "serve", "--listen", f"127.0.0.1:{self.port}",
                 "--http", "127.0.0.1:0", "--allow-root-trials",
                 "--db", self.db, "--state-dir", self.runs] + self.extra,
                stdout=log, stderr=subprocess.STDOUT, env=self.env,
                cwd=self.dir)

        def listening() -> bool:
            if self.process.poll() is not None:
                pytest.fail(f"hptune serve exited {self.process.returncode}:"
                            f"\n{read(self.log)}")
            return len(pattern.findall(read(self.log))) > before

        poll_until(listening, timeout, "hptune serve to listen")
        self.port = int(pattern.findall(read(self.log))[-1])
        return self

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def client(self, **options) -> hptune.Client:
        if "token" not in options:
            options.setdefault("token_file", self.token_file)
        return hptune.Client(self.address, **options)


@pytest.fixture
def server_factory(tmp_path, monkeypatch):
    servers: List[Server] = []
    # Clients a test leaves open are closed before their servers stop: a
    # drain waits up to 5 s for a client that still holds a connection.
    clients: List[hptune.Client] = []
    init = hptune.Client.__init__

    def tracked_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        clients.append(self)

    monkeypatch.setattr(hptune.Client, "__init__", tracked_init)

    def make(extra: Optional[List[str]] = None, name: str = "server",
             port: int = 0) -> Server:
        directory = tmp_path / f"{name}{len(servers)}"
        directory.mkdir()
        server = Server(str(directory), extra, port)
        servers.append(server)
        return server

    yield make
    for client in clients:
        client.close()
    for server in servers:
        server.stop()


@pytest.fixture
def server(server_factory) -> Server:
    return server_factory().start()


@pytest.fixture
def client(server):
    with server.client() as c:
        yield c


def run_hptune(args: List[str], env=None, cwd=None,
               timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([HPTUNE] + args, env=env, cwd=cwd, timeout=timeout,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
