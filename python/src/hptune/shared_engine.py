"""Several programs of one user on one database through one local engine.

The first ``Client.local(PATH)`` starts the engine (local.py) and records
where it listens beside the database, in ``PATH.hptune-local`` (JSON:
address, token file, owner pid; mode 0600). A later ``Client.local(PATH)``
of the same user, in this or another process, finds the record, checks it
(a regular file this user owns, mode 0600, its owner alive, its socket
listening) and joins that engine instead of failing with "already served":
it registers in ``PATH.hptune-local.d/<pid>`` and its close() leaves.

The engine lives as long as its first program: that program's close() (at
exit too) waits until every program that joined has left or died before it
drains the engine, so a study shared this way reaches every program's
trials. A first program killed outright (kill -9) takes the engine with it
(local.py), and the others' calls fail as with a stopped server.

Used by Client.local. Thread-safe: files only, each written whole.
"""

import atexit
import json
import os
import stat
import threading
import time
from typing import List, Optional

from hptune import local

_RECORD = ".hptune-local"
_USERS = ".hptune-local.d"
_WAIT_SECONDS = 0.05


def publish(file: str, address: str, token_file: str) -> None:
    """Records the engine this process runs on the database ``file``."""
    os.makedirs(file + _USERS, mode=0o700, exist_ok=True)
    temporary = f"{file}{_RECORD}.{os.getpid()}"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC |
                         os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w") as f:
        json.dump({"address": address, "token_file": token_file,
                   "pid": os.getpid()}, f)
    os.replace(temporary, file + _RECORD)


def _read(file: str) -> Optional[dict]:
    try:
        descriptor = os.open(file + _RECORD, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(descriptor) as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or \
                info.st_mode & 0o077:
            return None  # Not this user's record alone: never trusted.
        try:
            record = json.load(f)
            return record if isinstance(record, dict) else None
        except ValueError:
            return None


def withdraw(file: str) -> None:
    """Removes this process's record of ``file`` (not a newer one)."""
    record = _read(file)
    if record is not None and record.get("pid") == os.getpid():
        try:
            os.remove(file + _RECORD)
        except OSError:
            pass


def _users(file: str) -> List[int]:
    try:
        names = os.listdir(file + _USERS)
    except OSError:
        return []
    return [int(n) for n in names if n.isdigit()]


def wait_for_users(file: str) -> None:
    """Returns once every other process that joined has left or died."""
    while any(pid != os.getpid() and local.pid_alive(pid)
              for pid in _users(file)):
        time.sleep(_WAIT_SECONDS)


class Joined:
    """This process's membership of another Client.local's engine."""

    def __init__(self, file: str, address: str, token_file: str) -> None:
        self.file, self.address, self.token_file = file, address, token_file
        self._mark = os.path.join(file + _USERS, str(os.getpid()))
        self._lock = threading.Lock()
        self._callbacks = []
        os.close(os.open(self._mark, os.O_WRONLY | os.O_CREAT, 0o600))
        atexit.register(self.close)

    def on_close(self, callback) -> None:
        with self._lock:
            self._callbacks.append(callback)

    def close(self) -> None:
        with self._lock:
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()
        try:
            os.remove(self._mark)
        except OSError:
            pass
        atexit.unregister(self.close)


def join(file: str) -> Optional[Joined]:
    """Joins the engine another Client.local of this user runs on the
    database ``file``, when its record checks out; else None."""
    record = _read(file)
    if record is None:
        return None
    try:
        address, token_file, pid = (record["address"], record["token_file"],
                                    int(record["pid"]))
    except (KeyError, TypeError, ValueError):
        return None
    if not (isinstance(address, str) and address.startswith("unix:") and
            local.pid_alive(pid) and os.path.isfile(token_file) and
            local.accepts(address[len("unix:"):])):
        return None
    return Joined(file, address, token_file)


def join_when_published(file: str, seconds: float) -> Optional[Joined]:
    """join(), for up to ``seconds`` while the program that won the race
    to start the engine has not yet recorded it."""
    deadline = time.monotonic() + seconds
    while True:
        joined = join(file)
        if joined is not None or time.monotonic() > deadline:
            return joined
        time.sleep(_WAIT_SECONDS)

