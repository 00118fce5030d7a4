"""Study.optimize: an Optuna-like loop over ask/tell, on several workers.

Each worker is a client of its own, with client id ``<client_id>/<i>``
(i = 0 .. n_workers - 1; client_id defaults to ``<host>:<pid>``). A worker
asks for one trial at a time (SuggestTrials for its client id), calls
``objective(trial)`` and completes the trial with what it returns: a
number (the study's metric), a mapping of metrics, or None (the last
measurement that has the metric). The server hands a client's unfinished
trials back to it first, so:

- workers are threads with ``n_jobs`` or ``use_threads``, else processes
  (multiprocessing's "spawn": the objective must be picklable, a
  module-level function, and the script must guard its entry point with
  ``if __name__ == "__main__":``; check_processes_can_run refuses, saying
  why and what to do, when they cannot be);
- a worker process killed by a signal (SIGKILL, the OOM killer) is started again with
  the same client id, and the trial it held is handed back to it (at most
  5 times per worker, then optimize raises);
- a program killed whole (kill -9, a crash) takes its worker processes
  with it (PR_SET_PDEATHSIG), and run again with the same client_id gets
  its workers' trials back; with the default client id they
  stay ACTIVE, and a worker that waits because of them says so (a warning
  on the "hptune" logger, with the server's note);
- an interrupted optimize (Ctrl-C: KeyboardInterrupt) stops its workers and
  ends the trials they held INFEASIBLE, with the interruption as reason,
  then raises it.

``n_trials`` counts the trials this call starts (a handed-back trial was
counted when it first started), so with n_trials=None or the study's
maxTrials the study ends with exactly maxTrials trials. When suggest
returns nothing because maxParallelTrials is taken by other clients, a
worker waits (back-off up to 1 s) and asks again.

An exception from the objective ends its trial INFEASIBLE with the
exception as reason; when its type is in ``catch`` the worker goes on,
otherwise no new trial starts, the other workers finish theirs, and
optimize raises it (from a process: the same exception when it pickles, a
RuntimeError with its traceback otherwise). An Unavailable server is
retried for ``reconnect_seconds``.
"""

import ctypes
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import re
import signal
import socket
import sys
import threading
import time
import traceback
from typing import Any, Callable, Optional, Tuple, Type

from hptune import errors
from hptune.connection import Connection, retry_unavailable

_log = logging.getLogger("hptune")
_MAX_RESTARTS_PER_WORKER = 5
# A worker process's exit code when it queued an exception for optimize.
_EXIT_FAILED = 3
_PR_SET_PDEATHSIG = 1  # <sys/prctl.h>
_MAIN_GUARD = re.compile(
    r"^\s*if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", re.MULTILINE)


class _Tickets:
    """How many trials may still start; shared by the workers."""

    def __init__(self, limit: Optional[int], value, stop_flag) -> None:
        self._limit = limit
        self._value = value  # multiprocessing.Value or a list of one int
        self._stop = stop_flag

    def take(self) -> bool:
        with self._value.get_lock():
            if self._stop.is_set():
                return False
            if self._limit is not None and self._value.value >= self._limit:
                return False
            self._value.value += 1
            return True

    def give_back(self) -> None:
        with self._value.get_lock():
            self._value.value -= 1

    def stop(self) -> None:
        self._stop.set()


class _LockedInt:
    """multiprocessing.Value's interface, for threads."""

    def __init__(self) -> None:
        self.value = 0
        self._lock = threading.Lock()

    def get_lock(self) -> threading.Lock:
        return self._lock


def _evaluate(trial, objective, catch: Tuple[Type[BaseException], ...],
              window: float) -> Optional[BaseException]:
    """Runs the objective on one trial and ends the trial; returns an
    exception that must end optimize, else None."""
    try:
        result = objective(trial)
    except BaseException as e:  # noqa: B902 - reported, then re-raised
        reason = f"objective raised {type(e).__name__}: {e}"[:4000]
        try:
            retry_unavailable(lambda: trial.infeasible(reason), window)
        except errors.FailedPrecondition:
            pass  # Already ended (a job or a user ended it).
        if isinstance(e, catch):
            return None
        return e
    try:
        if isinstance(result, (int, float)) or result is None or \
                isinstance(result, dict):
            retry_unavailable(lambda: trial.complete(result), window)
        else:
            raise errors.InvalidArgument(
                f"the objective returned {result!r}; return a number, a dict "
                "of metrics or None")
    except errors.FailedPrecondition:
        pass  # Ended meanwhile: nothing to complete.
    return None


def _worker_loop(connection: Connection, study_name: str, objective,
                 client_id: str, tickets: _Tickets,
                 catch: Tuple[Type[BaseException], ...],
                 window: float, learns: bool) -> Optional[BaseException]:
    from hptune.study import Study
    from hptune.v1 import study_service_pb2

    study = Study(connection, retry_unavailable(lambda: connection.call(
        connection.studies.GetStudy,
        study_service_pb2.GetStudyRequest(name=study_name)), window))
    study.learns_parameters = learns
    # Trials this client id still holds: its predecessor died in them. Their
    # tickets were taken when they first started.
    held = [t for t in retry_unavailable(
        lambda: study.trials(states=("ACTIVE", "STOPPING"),
                             measurements=False), window)
            if t.client_id == client_id]
    for trial in held:
        failure = _evaluate(trial.refresh(), objective, catch, window)
        if failure is not None:
            tickets.stop()
            return failure
    delay = 0.05
    said = ""
    while tickets.take():
        suggestions = retry_unavailable(
            lambda: study.suggest(1, client_id), window)
        if not suggestions:
            tickets.give_back()
            if suggestions.study_completed:
                tickets.stop()
                return None
            if suggestions.note != said:  # Once per reason, not per poll.
                said = suggestions.note
                _log.warning("study %s: worker %s waits for a trial: %s",
                             study_name, client_id, said)
            time.sleep(delay)  # Other clients hold maxParallelTrials.
            delay = min(delay * 2, 1.0)
            continue
        delay = 0.05
        said = ""
        failure = _evaluate(suggestions[0], objective, catch, window)
        if failure is not None:
            tickets.stop()
            return failure
    return None


def _die_with(parent_pid: int) -> None:
    """Ends this worker when the optimize process dies (kill -9): an orphan
    would go on with its client id, which a rerun hands to a new worker."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # Not Linux: no parent-death signal.
        pass
    if os.getppid() != parent_pid:  # Died before prctl took effect.
        os._exit(1)


def _process_main(parent_pid, connection_options, study_name, objective,
                  client_id, limit, value, stop_flag, catch, window,
                  results, learns) -> None:
    _die_with(parent_pid)
    tickets = _Tickets(limit, value, stop_flag)
    try:
        connection = Connection(**connection_options)
        failure = _worker_loop(connection, study_name, objective, client_id,
                               tickets, catch, window, learns)
    except BaseException as e:  # A server error: end the others too.
        tickets.stop()
        failure = e
    if failure is None:
        return
    try:
        results.put((client_id, failure))
    except Exception:  # Does not pickle.
        results.put((client_id, RuntimeError(
            "the objective raised (in worker %s):\n%s" % (
                client_id, "".join(traceback.format_exception(
                    type(failure), failure, failure.__traceback__))))))
    results.close()
    results.join_thread()  # Flushed before the exit code says it is there.
    os._exit(_EXIT_FAILED)


def run_optimize(connection: Connection, study_name: str,
                 objective: Callable[..., Any], n_trials: Optional[int],
                 n_workers: int, *, client_id: Optional[str],
                 use_threads: bool, catch: Tuple[Type[BaseException], ...],
                 reconnect_seconds: float,
                 learns_parameters: bool = False) -> None:
    if n_trials is not None and (not isinstance(n_trials, int) or n_trials < 1):
        raise errors.InvalidArgument(
            f"n_trials: {n_trials!r} is not None or an integer >= 1")
    if not isinstance(n_workers, int) or not 1 <= n_workers <= 1000:
        raise errors.InvalidArgument(
            f"n_workers: {n_workers!r} is not an integer in [1, 1000]")
    base = client_id or f"{socket.gethostname()}:{os.getpid()}"
    ids = [f"{base}/{i}" for i in range(n_workers)]
    if use_threads or n_workers == 1:
        _run_threads(connection, study_name, objective, ids, n_trials, catch,
                     reconnect_seconds, learns_parameters)
    else:
        check_processes_can_run(objective, n_workers)
        _run_processes(connection, study_name, objective, ids, n_trials,
                       catch, reconnect_seconds, learns_parameters)


def _why_processes_cannot_run(objective) -> Optional[str]:
    """Why spawned workers could not run ``objective``, or None."""
    try:
        pickle.dumps(objective)
    except Exception as e:  # noqa: B902 - any pickling failure
        return (f"the objective {objective!r} does not pickle ({e}; a "
                "lambda or a nested function never does)")
    main = sys.modules.get("__main__")
    if main is not None and main.__name__ == "__mp_main__":
        return ("this is a worker process that re-ran the script's "
                "top level: optimize is not guarded")
    path = getattr(main, "__file__", None)
    if getattr(objective, "__module__", None) != "__main__":
        return None
    if not path or not os.path.isfile(path):
        return ("the objective was defined in an interactive session "
                "(a REPL, stdin or a notebook), which worker processes "
                "cannot import")
    with open(path, encoding="utf-8", errors="replace") as f:
        if not _MAIN_GUARD.search(f.read()):
            return (f"{path} has no `if __name__ == \"__main__\":` guard, "
                    "so each worker process would run the script again")
    return None


def check_processes_can_run(objective, n_workers: int) -> None:
    """Refuses, saying why and what to do, an objective that spawned
    worker processes cannot run (multiprocessing's spawn re-imports the
    script's __main__ and unpickles the objective)."""
    why = _why_processes_cannot_run(objective)
    if why:
        raise errors.InvalidArgument(
            f"n_workers={n_workers} runs the objective in worker processes, "
            f"but {why}. Use n_jobs={n_workers} (threads, as Optuna's "
            "n_jobs), or define the objective at module level in a script "
            "whose optimize call is under `if __name__ == \"__main__\":`.")


def _run_threads(connection, study_name, objective, ids, n_trials, catch,
                 window, learns) -> None:
    tickets = _Tickets(n_trials, _LockedInt(), threading.Event())
    failures = []

    def work(worker_id: str) -> None:
        try:
            failure = _worker_loop(connection, study_name, objective,
                                   worker_id, tickets, catch, window, learns)
        except BaseException as e:  # A server error: end the others too.
            tickets.stop()
            failure = e
        if failure is not None:
            failures.append(failure)

    try:
        if len(ids) == 1:
            work(ids[0])
        else:
            threads = [threading.Thread(target=work, args=(i,), daemon=True)
                       for i in ids]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    except BaseException as e:  # KeyboardInterrupt in the calling thread.
        tickets.stop()
        _end_held_trials(connection, study_name, ids, e)
        raise
    if failures:
        raise failures[0]


def _end_held_trials(connection: Connection, study_name: str, ids,
                     interruption: BaseException) -> None:
    """Ends the trials the workers still hold INFEASIBLE, so that an
    interrupted optimize (Ctrl-C) leaves no trial ACTIVE for client ids
    nobody will use again, holding maxParallelTrials forever."""
    from hptune.study import Study
    from hptune.v1 import study_service_pb2

    reason = (f"optimize was interrupted ({type(interruption).__name__}) "
              "before the objective returned")
    try:
        study = Study(connection, connection.call(
            connection.studies.GetStudy,
            study_service_pb2.GetStudyRequest(name=study_name)))
        for trial in study.trials(states=("ACTIVE", "STOPPING"),
                                  measurements=False):
            if trial.client_id in ids:
                try:
                    trial.infeasible(reason)
                except errors.FailedPrecondition:
                    pass  # Ended meanwhile.
    except errors.HptuneError as e:
        _log.warning("study %s: could not end the interrupted trials: %s",
                     study_name, e)


def _run_processes(connection, study_name, objective, ids, n_trials, catch,
                   window, learns) -> None:
    context = multiprocessing.get_context("spawn")
    value = context.Value("q", 0)
    stop_flag = context.Event()
    results = context.Queue()
    options = connection.options()

    def start(worker_id: str):
        process = context.Process(
            target=_process_main, name=f"hptune-optimize {worker_id}",
            args=(os.getpid(), dict(options), study_name, objective,
                  worker_id, n_trials, value, stop_flag, catch, window,
                  results, learns))
        process.start()
        return process

    processes = {worker_id: start(worker_id) for worker_id in ids}
    restarts = {worker_id: 0 for worker_id in ids}
    failures = []
    interrupted = None
    try:
        while processes:
            multiprocessing.connection.wait(
                [p.sentinel for p in processes.values()])
            for worker_id, process in list(processes.items()):
                if process.exitcode is None:
                    continue
                del processes[worker_id]
                if process.exitcode == 0:
                    continue
                if process.exitcode == _EXIT_FAILED:
                    failures.append(results.get(timeout=60)[1])
                    continue
                if process.exitcode > 0:  # Python failed before the loop.
                    stop_flag.set()
                    failures.append(RuntimeError(
                        f"optimize: worker {worker_id} exited with status "
                        f"{process.exitcode} (its traceback is on stderr)"))
                    continue
                # Killed by a signal: its trial is handed back to its
                # successor with the same client id.
                restarts[worker_id] += 1
                if restarts[worker_id] > _MAX_RESTARTS_PER_WORKER:
                    stop_flag.set()
                    failures.append(RuntimeError(
                        f"optimize: worker {worker_id} died "
                        f"{restarts[worker_id]} times (last exit code "
                        f"{process.exitcode}); its trial stays ACTIVE for "
                        "that client id"))
                    continue
                processes[worker_id] = start(worker_id)
    except BaseException as e:  # KeyboardInterrupt, SIGTERM as SystemExit
        interrupted = e
        stop_flag.set()
    finally:
        for process in processes.values():
            process.terminate()
        for process in processes.values():
            process.join(30)
    if interrupted is not None:
        _end_held_trials(connection, study_name, ids, interrupted)
        raise interrupted
    if failures:
        raise failures[0]
