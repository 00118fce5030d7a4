"""Leases of ask/tell trials (docs/python.md, "Leases"): a real `hptune
serve` with a one-second lease (the server's --trial-lease, or the study's
trialLeaseSeconds beside the server's default of 300 s), the package's
renewal thread, and a real client process killed with SIGKILL."""

import signal
import subprocess
import sys
import textwrap

import pytest

import hptune.leases

from conftest import poll_until

SPEC = {"goal": "MAXIMIZE", "maxTrials": 10, "maxParallelTrials": 1,
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0,
                    "maxValue": 1}]}
LEASE = 1  # Seconds; the thread renews every third of it.


@pytest.fixture(params=["server", "study"])
def leased(request, server_factory):
    """A server and a study spec whose trials' lease is LEASE: set by the
    server's flag, or by the study over the server's default."""
    if request.param == "server":
        return server_factory(["--trial-lease", str(LEASE)]).start(), SPEC
    return server_factory([]).start(), dict(SPEC, trialLeaseSeconds=LEASE)


def test_the_thread_renews_a_held_trial_until_it_is_told(leased):
    leased_server, spec = leased
    with leased_server.client() as client:
        study = client.study("svc", spec)
        keeper = client._connection.leases
        trial = study.suggest(1, client_id="worker")[0]
        assert keeper.held() == {("svc", "worker"): {trial.id}}
        # Four renewals take longer than the lease: without them, the
        # server would have ended the trial by now.
        poll_until(lambda: keeper.renewals >= 4, timeout=30,
                   what="four renewals")
        assert trial.refresh().state == "ACTIVE"
        trial.complete(0.5)
        assert keeper.held() == {}
        poll_until(lambda: not keeper.running(), timeout=30,
                   what="the renewing thread to end")
        assert trial.refresh().state == "SUCCEEDED"


def test_a_sequential_loop_keeps_one_thread(leased, monkeypatch):
    # Long enough that no loaded machine ends the thread between a told
    # trial and the next suggestion.
    monkeypatch.setattr(hptune.leases, "IDLE_SECONDS", 60.0)
    leased_server, spec = leased
    with leased_server.client() as client:
        study = client.study("svc", spec)
        keeper = client._connection.leases
        for value in (0.1, 0.2, 0.3):
            study.suggest(1, client_id="loop")[0].complete(value)
        assert keeper.held() == {}
        assert keeper.running()
        assert keeper.threads_started == 1
    assert not keeper.running()  # Closing the client ends it at once.


def test_a_trial_not_renewed_ends_failed_naming_its_client(leased):
    leased_server, spec = leased
    with leased_server.client() as client:
        study = client.study("svc", spec)
        trial = study.suggest(1, client_id="quiet")[0]
        client._connection.leases.release("svc", trial.id)
        poll_until(lambda: trial.refresh().state == "FAILED", timeout=30,
                   what="the lease to lapse")
        assert 'no heartbeat from client "quiet"' in trial.reason
        assert f"(its lease is {LEASE} s)" in trial.reason


def test_a_killed_clients_trial_ends_and_frees_its_slot(leased):
    leased_server, spec = leased
    child = textwrap.dedent(f"""
        import sys, time, hptune
        client = hptune.Client({leased_server.address!r},
                               token_file={leased_server.token_file!r})
        trial = client.study("svc", {spec!r}).suggest(1, "victim")[0]
        keeper = client._connection.leases
        print(trial.id, flush=True)
        deadline = time.monotonic() + 30
        while keeper.renewals < 4:  # The objective "runs" past the lease.
            if time.monotonic() > deadline:
                sys.exit("no renewals in 30 s")
            time.sleep(0.02)
        print("renewed", flush=True)
        sys.stdin.read()  # Until killed.
    """)
    process = subprocess.Popen([sys.executable, "-c", child],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        trial_id = int(process.stdout.readline())
        assert process.stdout.readline() == "renewed\n"
        with leased_server.client() as client:
            study = client.study("svc", spec)
            trial = study.trial(trial_id)
            assert trial.state == "ACTIVE"
            # Its slot (maxParallelTrials 1) is taken while it lives.
            assert not study.suggest(1, client_id="other")
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
            poll_until(lambda: trial.refresh().state == "FAILED", timeout=30,
                       what="the killed client's lease to lapse")
            assert 'no heartbeat from client "victim"' in trial.reason
            assert [t.id for t in study.suggest(1, client_id="other")] == [
                trial_id + 1]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
