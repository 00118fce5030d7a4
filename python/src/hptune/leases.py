"""The heartbeat of an ask/tell client: keeps its trials' leases.

hptune's server gives each trial it hands to a client id a lease
(docs/api.md, "Leases"): a trial whose client sends no heartbeat for the
lease ends FAILED, so a program killed while it held trials (SIGKILL, a
lost host) frees their maxParallelTrials slots. While a program holds
trials (Study.suggest, Study.optimize, hptune.optuna), a background thread
of its Connection calls RenewTrialLeases every third of the lease for each
(study, client id) that still holds one; telling a trial's result
(complete, infeasible) or seeing it ended stops renewing it, and the thread
ends once nothing has been held for IDLE_SECONDS (a sequential loop tells a
trial and asks for the next at once, and keeps one thread).

Used by Connection (one LeaseKeeper each), Study and Trial. Thread-safe.
"""

import threading
import time
from typing import Dict, Iterable, Optional, Set, Tuple

from hptune import errors
from hptune.v1 import study_service_pb2

# A lease is renewed this many times within its span: one lost or late
# heartbeat does not end the trial.
RENEWALS_PER_LEASE = 3
# How long the thread waits for the next trial to hold before it ends.
IDLE_SECONDS = 1.0

Key = Tuple[str, str]  # (study, client id)


class LeaseKeeper:
    """Renews the leases of the trials a Connection's program holds."""

    def __init__(self, connection) -> None:
        self._connection = connection
        self._cond = threading.Condition()
        self._held: Dict[Key, Set[int]] = {}
        self._lease: Dict[Key, int] = {}
        self._due: Dict[Key, float] = {}  # time.monotonic() of the next.
        self._thread: Optional[threading.Thread] = None
        self._closed = False
        self.renewals = 0  # RenewTrialLeases calls answered so far.
        self.threads_started = 0

    def hold(self, study: str, client_id: str, trial_ids: Iterable[int],
             lease_seconds: int) -> None:
        """Renews these trials' leases from now until they are released."""
        ids = set(trial_ids)
        if lease_seconds <= 0 or not ids:
            return
        key = (study, client_id)
        with self._cond:
            if self._closed:
                return
            self._held.setdefault(key, set()).update(ids)
            self._lease[key] = lease_seconds
            self._due.setdefault(
                key, time.monotonic() + lease_seconds / RENEWALS_PER_LEASE)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="hptune-leases", daemon=True)
                self._thread.start()
                self.threads_started += 1
            self._cond.notify_all()

    def release(self, study: str, trial_id: int) -> None:
        """Stops renewing a trial (told, or seen ended)."""
        with self._cond:
            for key in [k for k in self._held if k[0] == study]:
                self._held[key].discard(trial_id)
                if not self._held[key]:
                    self._forget(key)
            self._cond.notify_all()

    def held(self) -> Dict[Key, Set[int]]:
        """What is renewed now: (study, client id) -> trial ids."""
        with self._cond:
            return {key: set(ids) for key, ids in self._held.items()}

    def running(self) -> bool:
        """Whether the renewing thread runs (it ends once nothing has been
        held for IDLE_SECONDS)."""
        with self._cond:
            return self._thread is not None

    def close(self) -> None:
        """Stops renewing anything; waits for the thread to end."""
        with self._cond:
            self._closed = True
            thread = self._thread
            self._cond.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _forget(self, key: Key) -> None:
        del self._held[key]
        self._lease.pop(key, None)
        self._due.pop(key, None)

    def _next_due(self) -> Optional[Tuple[Key, Set[int], float]]:
        """Under the lock: waits for the next renewal that is due; None when
        closed or once nothing has been held for IDLE_SECONDS (the thread
        then ends)."""
        idle_until = None
        while not self._closed:
            if not self._held:
                now = time.monotonic()
                idle_until = idle_until or now + IDLE_SECONDS
                if now >= idle_until:
                    break
                self._cond.wait(idle_until - now)
                continue
            idle_until = None
            key = min(self._held, key=lambda k: self._due[k])
            wait = self._due[key] - time.monotonic()
            if wait <= 0:
                interval = self._lease[key] / RENEWALS_PER_LEASE
                self._due[key] = time.monotonic() + interval
                return key, set(self._held[key]), interval
            self._cond.wait(wait)
        self._thread = None
        return None

    def _run(self) -> None:
        while True:
            with self._cond:
                due = self._next_due()
            if due is None:
                return
            key, sent, interval = due
            try:
                reply = self._connection.call(
                    self._connection.studies.RenewTrialLeases,
                    study_service_pb2.RenewTrialLeasesRequest(
                        study=key[0], client_id=key[1]),
                    timeout=max(interval, 1.0))
            except errors.HptuneError:
                continue  # The server is away: the lease decides, retry.
            with self._cond:
                self.renewals += 1
                # A trial held before the call and not renewed has ended
                # (its lease lapsed): the server will not take it back.
                lost = sent - set(reply.trial_ids)
                if key in self._held:
                    self._held[key] -= lost
                    if not self._held[key]:
                        self._forget(key)
