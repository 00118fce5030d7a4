"""The package against a server whose store is PostgreSQL: a real
`hptune serve --db postgresql://...` (one, and two on one database) and
`Client.local(postgresql://...)` on a database of the ctest fixture's
server (tests/testing/postgres_server, `database` verb). Skipped where no PostgreSQL server runs, unless
HPTUNE_EXPECT names "postgresql": then it fails.
"""

import concurrent.futures
import itertools
import os
import subprocess

import pytest

import hptune
from conftest import DATA, expected, run_hptune

SPEC = {"goal": "MINIMIZE", "maxTrials": 9, "maxParallelTrials": 2,
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": -2,
                    "maxValue": 2},
                   {"parameterName": "opt", "type": "CATEGORICAL",
                    "categoricalValues": ["a", "b"]}]}

JOB_CONFIG = os.path.join(DATA, "job_trainer", "config.yaml")

_names = itertools.count(1)


@pytest.fixture
def postgres_url() -> str:
    """A new, empty database of the fixture's server: its store URL."""
    tool = os.environ.get("HPTUNE_TEST_POSTGRES_SERVER", "")
    directory = os.environ.get("HPTUNE_TEST_POSTGRES", "")
    made = subprocess.run(
        [tool, "database", directory, f"py_{os.getpid()}_{next(_names)}"],
        capture_output=True, text=True, timeout=60) if tool else None
    if made is None or made.returncode != 0:
        why = made.stderr.strip() if made else "HPTUNE_TEST_POSTGRES_SERVER unset"
        if expected("postgresql"):
            pytest.fail(f"HPTUNE_EXPECT names postgresql, but: {why}",
                        pytrace=False)
        pytest.skip(f"no PostgreSQL server: {why}")
    return made.stdout.strip()


def objective(trial) -> float:
    x = trial.suggest_float("x", -2, 2)
    return x * x + (0.5 if trial.suggest_categorical("opt", ["a", "b"]) == "b"
                    else 0.0)


def test_a_served_postgres_store_keeps_every_trial_across_a_restart(
        server_factory, postgres_url):
    server = server_factory()
    server.db = postgres_url
    server.start()
    with server.client() as client:
        study = client.study("pg", SPEC)
        study.optimize(objective, n_trials=8, n_jobs=2)
        told = {t.id: t.value for t in study.trials()}
        best = study.best_params
    assert sorted(told) == list(range(1, 9))
    assert all(value is not None for value in told.values())
    assert server.stop() == 0
    server.start()  # A new process on the same database.
    with server.client() as client:
        study = client.load_study("pg")
        assert {t.id: t.value for t in study.trials()} == told
        assert study.best_params == best
        # Numbering goes on after the restart.
        assert study.suggest()[0].id == 9


def test_client_local_runs_on_postgres_and_the_cli_reads_it(postgres_url):
    with hptune.Client.local(postgres_url) as client:
        study = client.study("local_pg", SPEC)
        study.optimize(objective, n_trials=4)
        values = sorted(t.value for t in study.trials())
    assert len(values) == 4
    listed = run_hptune(["trials", "list", "--study", "local_pg", "--db",
                         postgres_url,
                         "--format", "json"])
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count('"SUCCEEDED"') == 4, listed.stdout


def test_two_servers_share_a_study_and_a_job(server_factory, postgres_url,
                                             tmp_path):
    """Two servers on one database: a client of each optimises one study at
    once, and a job submitted to one is followed and read through the
    other (servers on one machine share the state directory:
    docs/operations.md, "Several servers")."""
    servers = [server_factory(), server_factory()]
    for server in servers:
        server.db = postgres_url
        server.runs = str(tmp_path / "runs")
        server.start()
    with servers[0].client() as first, servers[1].client() as second:
        studies = [first.study("two", SPEC), second.load_study("two")]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            # As two programs: a client id each (the default is the
            # process's, whose trials a second optimize would take back).
            runs = [pool.submit(study.optimize, objective, n_trials=4,
                                client_id=name)
                    for study, name in zip(studies, ("first", "second"))]
            for run in runs:
                run.result(timeout=240)
        told = {t.id: t.value for t in studies[0].trials()}
        assert sorted(told) == list(range(1, 9))
        assert all(value is not None for value in told.values())
        assert {t.id: t.value for t in studies[1].trials()} == told

        first.submit_job("two_job", JOB_CONFIG,
                         overrides={"hyperparameters": {"maxTrials": 2}})
        done = second.job("two_job").wait(timeout=240)
        assert done.state == "SUCCEEDED", done.error_message
        assert [t.trial_id for t in done.trials] == [1, 2]
        log = b"".join(done.logs(trial=2)).decode()
        assert "hello from trial 2" in log
