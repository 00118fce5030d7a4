"""A private ``hptune serve`` for one Python process: no server to start.

    client = hptune.Client.local("study.db")   # the CLI and dashboard read it

Used by Client.local and by hptune.optuna's samplers (their default). The
server runs on a Unix socket in a private directory (mode 0700, under
``$XDG_RUNTIME_DIR`` or the temp directory) with a fresh random token
(--token-file, mode 0600): only this user can open it, and no TCP port or
dashboard is opened. It lives as long as this process:

- a keeper thread starts it with ``prctl(PR_SET_PDEATHSIG, SIGTERM)`` and
  waits on it, so the kernel stops the server when this process dies in any
  way (kill -9 included); PDEATHSIG follows the thread that started the
  child, which is why that thread lives as long as the server;
- its database file, address and token file are named in the environment
  (``HPTUNE_LOCAL_ENGINES``), so that a spawned worker of optimize that
  re-imports a script with Client.local at module level connects to it
  (inherited_engine) instead of starting a second server on the file;
- close() (also at interpreter exit) first runs the callbacks given to
  on_close (Client.local closes its gRPC channel there: the server's drain
  waits up to 5 s for a client that still holds a connection), then drains
  it with SIGTERM and removes the private directory; a directory left by a
  process killed outright is removed by the next LocalEngine of this user
  (its owner pid is gone).

Jobs (Client.submit_job) run as on ``hptune serve``: as root, only with
``allow_root_trials`` (--allow-root-trials), and with ``allow_commands``
(--allow-command) only the trainers those rules allow.

On a database file it records where it listens beside the file, so that
a later Client.local of this user on the file joins it, and its close()
waits for those programs (shared_engine.py).

The ``hptune`` binary is ``$HPTUNE_BINARY``, else the one the package
carries (``hptune/bin/hptune``, when it was built with one: setup.py), else
``hptune`` on PATH, else the source tree's ``build/src/cli/hptune``;
FileNotFoundError says where it looked and how to fix it. Thread-safe:
start and close are serialised.
"""

import atexit
import ctypes
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from typing import Callable, List, Optional, Sequence, Tuple

from hptune import shared_engine

_PR_SET_PDEATHSIG = 1  # <sys/prctl.h>
_DIR_PREFIX = "hptune-local-"
# {database file: [address, token file, owner pid]} of the engines this
# process and its ancestors run, for their spawned children.
_INHERITED = "HPTUNE_LOCAL_ENGINES"
_START_TIMEOUT_SECONDS = 120.0
_STOP_TIMEOUT_SECONDS = 30.0
_MAX_DB_PATH_CHARS = 4096


_SHARED_HINT = (
    "\nAnother program (an hptune serve, or another user's Client.local) "
    "serves this database, and one database has one server. For several "
    "programs on one study, give each Client.local(FILE) (one user), or "
    "start `hptune serve --db FILE --socket PATH` once and give each "
    "program Client(\"unix:PATH\") (docs/python.md, \"Several programs, "
    "one study\").")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


def store_url(db: str) -> Tuple[str, Optional[str]]:
    """(the --db the engine gets, the database file or None) for ``db``, a
    store URL as ``hptune serve --db`` takes it (docs/operations.md): a
    path or ``sqlite:PATH`` is made absolute (the engine runs in its
    private directory); any other URL (``memory:``) goes as it is, and the
    engine names what it cannot open."""
    scheme = _SCHEME.match(db)
    if scheme is None:
        path = os.path.abspath(db)
        return path, path
    if scheme.group(1).lower() == "sqlite" and db[scheme.end():]:
        path = os.path.abspath(db[scheme.end():])
        return "sqlite:" + path, path
    return db, None


def printable_url(url: str) -> str:
    """``url`` for a message: a password (``user:secret@host``) left
    out, as the engine's own messages do."""
    authority, at = url.find("://"), url.find("@")
    if authority < 0 or at < authority:
        return url
    return url[:authority + 3] + "..." + url[at:]


def bundled_binary() -> str:
    """Where a package built with an engine carries it (setup.py)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin",
                        "hptune")


def find_binary() -> str:
    """The hptune binary: $HPTUNE_BINARY, else the one the package carries,
    else PATH, else the source tree's build (a package installed from a
    checkout)."""
    # Absolute: the engine runs in its private directory.
    explicit = os.environ.get("HPTUNE_BINARY")
    if explicit:
        if os.access(explicit, os.X_OK):
            return os.path.abspath(explicit)
        raise FileNotFoundError(
            f"HPTUNE_BINARY={explicit!r} is not an executable file")
    if os.access(bundled_binary(), os.X_OK):
        return bundled_binary()
    on_path = shutil.which("hptune")
    if on_path:
        return os.path.abspath(on_path)
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, *[".."] * n, "build", "src", "cli",
                               "hptune") for n in (3, 4)]
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    raise FileNotFoundError(
        "the local hptune engine (Client.local, hptune.optuna) needs the "
        "hptune binary, and this package was built without one: set "
        "HPTUNE_BINARY to it, put it on PATH (cmake --install, or the "
        "build's src/cli/hptune), or reinstall the package with "
        "HPTUNE_BINARY set so that it carries one; looked in "
        "$HPTUNE_BINARY, " + bundled_binary() + ", PATH and " +
        ", ".join(os.path.normpath(c) for c in candidates))


def inherited_engine(db: Optional[str]) -> Optional[Tuple[str, str]]:
    """(address, token file) of the engine an ancestor process runs on the
    database file ``db`` (a spawned worker of optimize that re-imports a
    script with Client.local at module level), when it still listens."""
    file = store_url(str(db))[1] if db is not None else None
    try:
        engines = json.loads(os.environ.get(_INHERITED, "{}"))
        address, token_file, owner = engines[file]
    except (KeyError, ValueError, TypeError):
        return None
    if owner == os.getpid() or not accepts(address[len("unix:"):]):
        return None
    return address, token_file


def _advertise(file: str, entry: Optional[list]) -> None:
    """Names (or, with None, forgets) this process's engine on ``file`` in
    the environment its children inherit."""
    try:
        engines = json.loads(os.environ.get(_INHERITED, "{}"))
    except ValueError:
        engines = {}
    if entry is None:
        engines.pop(file, None)
    else:
        engines[file] = entry
    os.environ[_INHERITED] = json.dumps(engines)


def _runtime_dir() -> str:
    base = os.environ.get("XDG_RUNTIME_DIR")
    return base if base and os.path.isdir(base) else tempfile.gettempdir()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_dirs(base: str) -> List[str]:
    """Removes this user's private directories whose owner process is gone
    (named hptune-local-<pid>-<random>); returns them."""
    removed = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(_DIR_PREFIX):
            continue
        path = os.path.join(base, name)
        try:
            pid = int(name[len(_DIR_PREFIX):].split("-")[0])
            owned = os.lstat(path).st_uid == os.getuid()
        except (ValueError, OSError):
            continue
        if owned and not pid_alive(pid):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def accepts(path: str) -> bool:
    """True once a server listens on the Unix socket at `path`: its file
    appears at bind(), and connections are refused until listen()."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _die_with_parent() -> None:
    """preexec_fn: SIGTERM to the server when its starting thread ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class LocalEngine:
    """One private ``hptune serve`` on ``db`` (a store URL: a SQLite file's
    path or ``sqlite:PATH``, created when missing, or ``memory:``; None: a
    temporary file, removed by close()). ``address`` is its
    gRPC target, ``token`` its token."""

    def __init__(self, db: Optional[str], *, binary: Optional[str] = None,
                 state_dir: Optional[str] = None,
                 inline_refits: bool = False,
                 allow_root_trials: bool = False,
                 allow_commands: Sequence[str] = ()) -> None:
        if db is not None and (not isinstance(db, (str, os.PathLike)) or
                               not str(db) or
                               len(str(db)) > _MAX_DB_PATH_CHARS):
            raise ValueError(f"db: {db!r} is not a path of 1 to "
                             f"{_MAX_DB_PATH_CHARS} characters")
        self.binary = binary or find_binary()
        self._inline_refits = inline_refits
        if isinstance(allow_commands, str):
            raise ValueError("allow_commands: a list of rules, not one "
                             f"string ({allow_commands!r})")
        self._allow = (["--allow-root-trials"] if allow_root_trials else
                       []) + [a for rule in allow_commands
                              for a in ("--allow-command", str(rule))]
        self._lock = threading.Lock()
        self._owner = os.getpid()
        self._process: Optional[subprocess.Popen] = None
        self._started = threading.Event()
        self._on_close: List[Callable[[], None]] = []
        self._start_error: Optional[BaseException] = None
        base = _runtime_dir()
        remove_stale_dirs(base)
        self.dir = tempfile.mkdtemp(prefix=f"{_DIR_PREFIX}{os.getpid()}-",
                                    dir=base)  # mode 0700
        # No db: a temporary one in the private directory, gone at close.
        self.db, file = store_url(os.path.join(self.dir, "hptune.db")
                                  if db is None else str(db))
        # Runs beside a database file; a store without one (memory:) keeps
        # them in the private directory.
        self.state_dir = state_dir or os.path.join(
            os.path.dirname(file) if file else self.dir, "hptune-runs")
        self.socket = os.path.join(self.dir, "hptune.sock")
        self.address = "unix:" + self.socket
        self.token = secrets.token_hex(32)
        self.token_file = os.path.join(self.dir, "token")
        descriptor = os.open(self.token_file,
                             os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as f:
            f.write(self.token + "\n")
        self.log = os.path.join(self.dir, "serve.log")
        self._start()
        self._file = file if db is not None else None
        if self._file:
            _advertise(self._file, [self.address, self.token_file,
                                    os.getpid()])
            shared_engine.publish(self._file, self.address, self.token_file)
        atexit.register(self.close)

    def _command(self) -> List[str]:
        return [self.binary, "serve", "--listen", self.address, "--http",
                "off", "--db", self.db, "--state-dir", self.state_dir,
                "--token-file", self.token_file] + (
                    ["--inline-refits"] if self._inline_refits else []) + \
            self._allow

    def _keep(self) -> None:
        try:
            with open(self.log, "ab") as log:
                self._process = subprocess.Popen(
                    self._command(), stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, preexec_fn=_die_with_parent,
                    cwd=self.dir)
        except BaseException as e:  # noqa: B902 - handed to the caller
            self._start_error = e
            self._started.set()
            return
        self._started.set()
        self._process.wait()

    def _start(self) -> None:
        threading.Thread(target=self._keep, name="hptune-local-engine",
                         daemon=True).start()
        self._started.wait()
        if self._start_error is not None:
            self.close()
            raise self._start_error
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while not accepts(self.socket):
            if self._process.poll() is not None or \
                    time.monotonic() > deadline:
                message = self._failure("did not start")
                self.close()
                raise RuntimeError(message)
            time.sleep(0.02)

    def _failure(self, what: str) -> str:
        try:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                log = f.read()[-4000:]
        except OSError:
            log = ""
        code = self._process.poll() if self._process else None
        command = [printable_url(a) if a == self.db else a
                   for a in self._command()]
        return (f"the local hptune engine ({' '.join(command)}) "
                f"{what}" + (f" (exit {code})" if code is not None else "") +
                (f":\n{log}" if log else "") + (
                    _SHARED_HINT if "already served" in log else ""))

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def on_close(self, callback: Callable[[], None]) -> None:
        """Runs ``callback`` at the start of close(), before the drain."""
        with self._lock:
            self._on_close.append(callback)

    def close(self) -> None:
        """Waits for the programs that joined it (shared_engine.py), closes
        what on_close named, drains the server (SIGTERM; SIGKILL after
        30 s) and removes the private directory. Safe to call twice."""
        if os.getpid() != self._owner:
            return  # A fork()ed child's exit leaves its parent's server.
        with self._lock:
            if getattr(self, "_file", None):
                _advertise(self._file, None)
                shared_engine.withdraw(self._file)
                shared_engine.wait_for_users(self._file)
            callbacks, self._on_close = self._on_close, []
            for callback in callbacks:
                callback()
            process, self._process = self._process, None
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=_STOP_TIMEOUT_SECONDS)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            shutil.rmtree(self.dir, ignore_errors=True)
        atexit.unregister(self.close)
