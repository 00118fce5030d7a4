"""Training jobs from Python: submit, wait, logs, watch, list, cancel."""

import os
import threading

import pytest

import hptune
from conftest import DATA, poll_until, trainer_environment

CONFIG = os.path.join(DATA, "job_trainer", "config.yaml")


def test_submit_wait_and_logs(client):
    job = client.submit_job("py_job", CONFIG, labels={"size": "small"},
                            overrides={"hyperparameters": {"maxTrials": 2}})
    assert job.job_id == "py_job" and job.state == "QUEUED"
    assert job.labels == {"team": "tests", "size": "small"}
    seen = []
    done = job.wait(progress=lambda j: seen.append(
        (j.state, j.completed_trial_count)), timeout=240)
    assert done.state == "SUCCEEDED", done.error_message
    assert seen[0][0] in ("QUEUED", "PREPARING", "RUNNING")
    assert seen[-1] == ("SUCCEEDED", 2)
    assert [t.trial_id for t in done.trials] == [1, 2]
    for trial in done.trials:
        x = float(trial.hyperparameters["x"])
        assert trial.state == "SUCCEEDED"
        assert trial.value == pytest.approx((x - 0.25) ** 2)
        assert trial.step == 2
    assert done.best_trial.value == min(t.value for t in done.trials)
    assert done.to_dict()["trainingOutput"]["completedTrialCount"] == "2"
    log = b"".join(done.logs(trial=1)).decode()
    x = done.trials[0].hyperparameters["x"]
    assert f"hello from trial 1 with x={float(x)}" in log
    assert log.rstrip().endswith("done")
    # The job's study is a study like any other, named by the job ID.
    study = client.load_study("py_job")
    assert [t.id for t in study.trials()] == [1, 2]
    assert study.trial(1).measurements[0].metrics["loss"] == \
        pytest.approx(10 + float(x))


def test_a_job_without_hyperparameters_runs_once(client):
    """AI Platform runs a trainingInput without hyperparameters as one
    training job; hptune as one trial, numbered 1, with no parameters."""
    train = os.path.join(DATA, "job_trainer", "train.py")
    job = client.submit_job("py_once", {"trainingInput": {
        "command": ["python3", train], "args": ["--x=0.5"]}})
    done = job.wait(timeout=240)
    assert done.state == "SUCCEEDED", done.error_message
    assert [t.trial_id for t in done.trials] == [1]
    assert done.trials[0].hyperparameters == {}
    assert done.trials[0].state == "SUCCEEDED"
    log = b"".join(done.logs(trial=1)).decode()
    assert "hello from trial 1 with x=0.5" in log
    assert log.rstrip().endswith("done")
    # Its reports are kept, though no metric is its result.
    assert done.best_trial is None
    measurements = client.load_study("py_once").trial(1).measurements
    assert [m.metrics["loss"] for m in measurements] == \
        pytest.approx([10.5, 0.0625])


def test_follow_logs_watch_and_cancel(client, tmp_path):
    release = tmp_path / "release"
    job = client.submit_job(
        "waiting_job", CONFIG,
        overrides={"args": [f"--wait_for={release}"],
                   "hyperparameters": {"maxTrials": 2}})
    events = []
    watcher = threading.Thread(target=lambda: events.extend(job.watch()))
    watcher.start()
    chunks = []
    for chunk in client.job("waiting_job").logs(trial=1, follow=True):
        chunks.append(chunk)
        if b"waiting for the test" in b"".join(chunks):
            release.touch()  # the trial ends; the stream follows to its end
    assert b"".join(chunks).decode().rstrip().endswith("done")

    # Trial 2 is waiting too (the release file exists now, so it ends at
    # once unless cancelled first): cancel, and the job ends CANCELLED or,
    # when trial 2 was faster, SUCCEEDED; either way the watch ends.
    poll_until(lambda: client.job("waiting_job").completed_trial_count >= 1,
               120, "trial 1 to be counted")
    try:
        job.cancel()
    except hptune.FailedPrecondition:
        pass  # It had ended already.
    final = job.wait(timeout=240)
    assert final.state in ("CANCELLED", "SUCCEEDED")
    watcher.join(240)
    kinds = ["job" if e.HasField("job") else "trial" for e in events]
    assert kinds[0] == "job" and "trial" in kinds
    assert events[-1].job.state == final.proto.state


def test_cancel_a_running_job(client, tmp_path):
    job = client.submit_job(
        "cancelled_job", CONFIG,
        overrides={"args": [f"--wait_for={tmp_path / 'never'}"]})
    poll_until(lambda: b"waiting for the test" in b"".join(
        job.logs(trial=1)) if job.refresh().state == "RUNNING" else False,
        120, "trial 1 to wait")
    with pytest.raises(hptune.FailedPrecondition, match="is RUNNING"):
        job.delete()
    assert job.cancel().state in ("CANCELLING", "CANCELLED")
    assert job.wait(timeout=120).state == "CANCELLED"
    with pytest.raises(hptune.FailedPrecondition, match="cancelled_job"):
        job.cancel()
    job.delete()
    with pytest.raises(hptune.NotFound, match="cancelled_job"):
        job.refresh()


def test_list_jobs_with_filters(client, tmp_path):
    never = f"--wait_for={tmp_path / 'never'}"
    a = client.submit_job("list_a", CONFIG, overrides={"args": [never]})
    b = client.submit_job("list_b", CONFIG, labels={"team": "other"},
                          overrides={"args": [never]})
    other = client.submit_job("other_c", CONFIG, overrides={"args": [never]})
    assert [j.job_id for j in client.list_jobs(prefix="list_")] == \
        ["list_b", "list_a"]  # newest first
    assert [j.job_id for j in client.list_jobs(labels={"team": "other"})] \
        == ["list_b"]
    assert {j.job_id for j in client.list_jobs(labels={"team": "*"})} == \
        {"list_a", "list_b", "other_c"}
    for job in (a, b, other):
        job.cancel()
    for job in (a, b, other):
        job.wait(timeout=120)
    assert {j.job_id for j in client.list_jobs(states=["CANCELLED"])} == \
        {"list_a", "list_b", "other_c"}
    with pytest.raises(hptune.InvalidArgument, match="DONE"):
        client.list_jobs(states=["DONE"])
    assert a.update_labels({"kept": "yes"}).labels == {"team": "tests",
                                                       "kept": "yes"}


def test_submit_errors_name_the_field(client, tmp_path):
    with pytest.raises(hptune.InvalidArgument, match="maxTrials"):
        client.submit_job("bad_job", CONFIG,
                          overrides={"hyperparameters": {"maxTrials": 0}})
    with pytest.raises(hptune.InvalidArgument, match="unknown key 'jobId'"):
        client.submit_job("bad_job", {"jobId": "x", "trainingInput": {}})
    with pytest.raises(hptune.InvalidArgument, match="scaleTeir"):
        client.submit_job("bad_job", CONFIG, overrides={"scaleTeir": "BASIC"})
    client.submit_job("taken", CONFIG, overrides={
        "args": [f"--wait_for={tmp_path / 'never'}"]})
    with pytest.raises(hptune.AlreadyExists, match="taken"):
        client.submit_job("taken", CONFIG)
    client.job("taken").cancel()
    client.job("taken").wait(timeout=120)


def test_wait_times_out_and_the_job_goes_on(client, tmp_path):
    release = tmp_path / "release"
    job = client.submit_job(
        "slow_job", CONFIG, overrides={"args": [f"--wait_for={release}"]})
    with pytest.raises(hptune.DeadlineExceeded):
        job.wait(timeout=1)
    assert job.refresh().state in ("QUEUED", "PREPARING", "RUNNING")
    release.touch()
    assert job.wait(timeout=240).state == "SUCCEEDED"


def test_wait_and_watch_go_on_across_a_server_restart(server_factory,
                                                      tmp_path):
    """python.md: a server that is restarting is retried; wait and watch
    reconnect and follow the job the next server resumes."""
    server = server_factory().start()
    client = server.client()
    release = tmp_path / "release"
    job = client.submit_job(
        "restarted_job", CONFIG, overrides={"args": [f"--wait_for={release}"]})
    poll_until(lambda: job.refresh().state == "RUNNING", 120,
               "the job to run")
    waited, watched = [], []
    waiter = threading.Thread(
        target=lambda: waited.append(job.wait(timeout=240)))
    watcher = threading.Thread(
        target=lambda: watched.extend(job.watch(timeout=240)))
    waiter.start()
    watcher.start()
    server.stop()  # SIGTERM: the job is left for the next server.
    server.start()
    release.touch()
    waiter.join(300)
    watcher.join(300)
    assert waited and waited[0].state == "SUCCEEDED", waited
    assert watched and watched[-1].job.state == waited[0].proto.state


def test_followed_logs_go_on_across_a_server_restart(server_factory,
                                                     tmp_path):
    """python.md: logs(follow=True) reconnects to the next server and
    goes on from where it was, to the end of the trial's log."""
    server = server_factory().start()
    client = server.client()
    release = tmp_path / "release"
    job = client.submit_job(
        "followed_job", CONFIG, overrides={"args": [f"--wait_for={release}"]})
    chunks = []
    restarted = False
    for chunk in client.job("followed_job").logs(trial=1, follow=True):
        chunks.append(chunk)
        if not restarted and b"waiting for the test" in b"".join(chunks):
            server.stop()  # SIGTERM: the stream ends with the server.
            server.start()
            restarted = True
            release.touch()
    log = b"".join(chunks).decode()
    assert restarted
    assert log.rstrip().endswith("done"), log
    assert job.wait(timeout=240).state == "SUCCEEDED"


def test_client_local_runs_jobs_by_the_servers_allow_rules(tmp_path,
                                                           monkeypatch):
    # The Jobs snippet on Client.local: as root, refused unless
    # allow_root_trials (hptune serve --allow-root-trials); allow_commands
    # are --allow-command's rules.
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", trainer_environment()["PATH"])
    one = {"hyperparameters": {"maxTrials": 1}}
    if os.geteuid() == 0:
        with hptune.Client.local(str(tmp_path / "refused.db")) as client:
            with pytest.raises(hptune.PermissionDenied,
                               match="--allow-root-trials"):
                client.submit_job("root_job", CONFIG, overrides=one)
    with hptune.Client.local(str(tmp_path / "allowed.db"),
                             allow_root_trials=True) as client:
        done = client.submit_job("root_job", CONFIG,
                                 overrides=one).wait(timeout=240)
        assert done.state == "SUCCEEDED", done.error_message
    with hptune.Client.local(str(tmp_path / "rules.db"),
                             allow_root_trials=True,
                             allow_commands=[str(tmp_path) + "/"]) as client:
        with pytest.raises(hptune.PermissionDenied,
                           match="not allowed by this server's "
                           "--allow-command rules"):
            client.submit_job("other_job", CONFIG, overrides=one)
    with pytest.raises(hptune.InvalidArgument, match="a list of rules"):
        hptune.Client.local(str(tmp_path / "x.db"), allow_commands="/bin/")
