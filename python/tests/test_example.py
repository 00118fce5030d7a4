"""examples/python/tune_svc.py runs end to end against a real server (a
short run; its 40-trial figure is in benchmarks/RESULTS.md)."""

import os
import subprocess
import sys

from conftest import SOURCE_DIR

EXAMPLE = os.path.join(SOURCE_DIR, "examples", "python", "tune_svc.py")


def test_the_svc_example_tunes_through_the_server(server, client):
    env = dict(server.env, HPTUNE_SERVER=server.address)
    env.pop("HPTUNE_TOKEN", None)  # the server's default token file
    out = subprocess.run(
        [sys.executable, EXAMPLE, "--study", "svc_smoke", "--trials", "4"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        timeout=600)
    assert out.returncode == 0, out.stdout
    assert "4 trials succeeded" in out.stdout, out.stdout
    study = client.load_study("svc_smoke")
    trials = study.trials()
    assert len(trials) == 4 and all(t.state == "SUCCEEDED" for t in trials)
    assert {t.client_id.rsplit("/", 1)[1] for t in trials} <= {"0", "1"}
    best = study.best_trial
    assert 0.0 < best.value <= 1.0
    assert f"accuracy {best.value:.6g}" in out.stdout
