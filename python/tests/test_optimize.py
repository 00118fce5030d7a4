"""Study.optimize on worker processes and threads, against a real server."""

import os
import signal
import subprocess
import sys

import pytest

import hptune
from conftest import DATA, poll_until, read

SCRIPT = os.path.join(DATA, "optimize_script.py")


def make_study(client, name, max_trials, parallel):
    return client.create_study(name, {
        "goal": "MINIMIZE", "maxTrials": max_trials,
        "maxParallelTrials": parallel,
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0,
                    "maxValue": 1}]})


def events(log):
    return [line.split() for line in read(log).splitlines()]


def run_script(server, study, log, *extra):
    # A session of its own: the test can send Ctrl-C's SIGINT to the group.
    return subprocess.Popen(
        [sys.executable, SCRIPT, server.address, server.token_file, study,
         log] + list(extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True)


def wait_for_four_starts(script, log):
    """Until four workers have started a trial each (the script still
    running)."""
    def four_started():
        if script.poll() is not None:
            pytest.fail(f"optimize ended early: {script.stdout.read()}")
        return len({e[2] for e in events(log) if e[0] == "start"}) == 4

    poll_until(four_started, 120, "four trials to start")


def test_four_worker_processes_run_exactly_max_trials(server, client,
                                                      tmp_path):
    study = make_study(client, "four", max_trials=16, parallel=4)
    log = str(tmp_path / "log")
    script = run_script(server, "four", log, "--meet", "4")
    output, _ = script.communicate(timeout=300)
    assert script.returncode == 0, output
    trials = study.trials()
    assert len(trials) == 16
    assert all(t.state == "SUCCEEDED" for t in trials)
    points = [tuple(sorted(t.parameters.items())) for t in trials]
    assert len(set(points)) == 16  # no duplicate parameters
    started = events(log)
    assert sorted(int(e[1]) for e in started) == list(range(1, 17))
    # Four workers, each a process of its own, held trials at once.
    assert {e[2] for e in started} == {f"opt/{i}" for i in range(4)}
    assert len({e[3] for e in started}) == 4
    assert study.refresh().state == "COMPLETED"


def test_a_killed_workers_trial_goes_to_its_successor(server, client,
                                                      tmp_path):
    study = make_study(client, "killed", max_trials=8, parallel=4)
    log = str(tmp_path / "log")
    script = run_script(server, "killed", log, "--block-trial", "3")
    blocked = []

    def blocked_line():
        blocked[:] = [e for e in events(log) if e[0] == "blocked"]
        if script.poll() is not None:
            pytest.fail(f"optimize ended early: {script.stdout.read()}")
        return bool(blocked)

    poll_until(blocked_line, 120, "a worker to block in trial 3")
    _, trial_id, client_id, pid = blocked[0]
    os.kill(int(pid), signal.SIGKILL)
    output, _ = script.communicate(timeout=300)
    assert script.returncode == 0, output

    trial = study.trial(3)
    assert trial.state == "SUCCEEDED" and trial.client_id == client_id
    starts = [e for e in events(log) if e[0] == "start" and e[1] == "3"]
    assert len(starts) == 2
    assert starts[0][2] == starts[1][2] == client_id
    assert starts[0][3] == pid and starts[1][3] != pid  # a new process
    trials = study.trials()
    assert len(trials) == 8 and all(t.state == "SUCCEEDED" for t in trials)


def test_ctrl_c_ends_the_held_trials_and_a_rerun_finishes(server, client,
                                                         tmp_path):
    study = make_study(client, "interrupted", max_trials=6, parallel=4)
    log = str(tmp_path / "log")
    script = run_script(server, "interrupted", log, "--hang", "--meet", "4")
    wait_for_four_starts(script, log)
    os.killpg(script.pid, signal.SIGINT)  # Ctrl-C in its terminal
    output, _ = script.communicate(timeout=120)
    assert script.returncode == 130, output
    trials = study.trials()
    assert len(trials) == 4
    for trial in trials:
        assert trial.state == "INFEASIBLE", trial
        assert "KeyboardInterrupt" in trial.reason, trial.reason
    # Nothing holds maxParallelTrials: a run with new client ids finishes.
    rerun = run_script(server, "interrupted", str(tmp_path / "log2"),
                       "--client-id", "rerun")
    output, _ = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, output
    assert [t.state for t in study.trials()][4:] == ["SUCCEEDED"] * 2


def test_a_program_killed_whole_takes_its_workers_and_a_rerun_resumes(
        server, client, tmp_path):
    study = make_study(client, "killed_whole", max_trials=6, parallel=4)
    log = str(tmp_path / "log")
    script = run_script(server, "killed_whole", log, "--hang", "--meet", "4")
    wait_for_four_starts(script, log)
    held = {int(e[1]): (e[2], int(e[3])) for e in events(log)
            if e[0] == "start"}
    os.kill(script.pid, signal.SIGKILL)  # the program only, not its workers
    script.communicate(timeout=60)

    def gone(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{pid}/stat") as f:  # reaped by init yet?
            return f.read().split(")")[-1].split()[0] == "Z"

    poll_until(lambda: all(gone(pid) for _, pid in held.values()), 60,
               "the workers to die with their program")
    assert {t.id for t in study.trials(states=["ACTIVE"])} == set(held)
    # The same client id again: each worker gets back the trial it held.
    rerun = run_script(server, "killed_whole", str(tmp_path / "log2"))
    output, _ = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, output
    trials = study.trials()
    assert len(trials) == 6 and all(t.state == "SUCCEEDED" for t in trials)
    for trial_id, (client_id, _) in held.items():
        assert study.trial(trial_id).client_id == client_id


def square(trial):
    return (trial.parameters["x"] - 0.5) ** 2


def test_threads_and_n_trials(client):
    study = make_study(client, "threads", max_trials=20, parallel=3)
    study.optimize(square, n_trials=5, n_workers=3, use_threads=True)
    assert len(study.trials()) == 5
    study.optimize(square, n_trials=4)
    assert len(study.trials()) == 9
    study.optimize(square, n_workers=2, use_threads=True)  # to maxTrials
    trials = study.trials()
    assert len(trials) == 20 and all(t.state == "SUCCEEDED" for t in trials)
    assert study.best_trial.value == min(t.value for t in trials)


def failing(trial):
    if trial.id == 2:
        raise ArithmeticError("diverged at x=%.3f" % trial.parameters["x"])
    return trial.parameters["x"]


def test_an_objectives_exception_ends_its_trial_and_is_raised(client):
    study = make_study(client, "raises", max_trials=6, parallel=1)
    with pytest.raises(ArithmeticError, match="diverged"):
        study.optimize(failing)
    second = study.trial(2)
    assert second.state == "INFEASIBLE"
    assert second.reason.startswith("objective raised ArithmeticError: "
                                    "diverged at x=")
    assert len(study.trials()) == 2  # no new trial after the failure
    # With catch, the loop goes on past such failures.
    study.optimize(failing, catch=(ArithmeticError,))
    assert len(study.trials()) == 6


def test_a_worker_process_exception_reaches_the_caller(server, client,
                                                       tmp_path):
    make_study(client, "raises_in_process", max_trials=6, parallel=2)
    script = tmp_path / "raise.py"
    script.write_text(
        "import sys, hptune\n"
        "def objective(trial):\n"
        "    raise KeyError('no such column')\n"
        "if __name__ == '__main__':\n"
        "    study = hptune.Client(sys.argv[1], token_file=sys.argv[2])"
        ".load_study('raises_in_process')\n"
        "    try:\n"
        "        study.optimize(objective, n_workers=2)\n"
        "    except KeyError as e:\n"
        "        print('caught', repr(e))\n")
    out = subprocess.run([sys.executable, str(script), server.address,
                          server.token_file], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=300)
    assert "caught KeyError('no such column')" in out.stdout, out.stdout
    reasons = {t.reason for t in client.load_study(
        "raises_in_process").trials()}
    assert reasons == {"objective raised KeyError: 'no such column'"}


def test_bad_arguments(client):
    study = make_study(client, "args", max_trials=2, parallel=1)
    with pytest.raises(hptune.InvalidArgument, match="n_workers: 0"):
        study.optimize(square, n_workers=0)
    with pytest.raises(hptune.InvalidArgument, match="n_trials: -1"):
        study.optimize(square, n_trials=-1)
