"""Which Python `hptune run` gives a trainer (docs/trainer.md, "Which
Python"): the real binary, and a real venv whose site-packages alone holds
a module the trainer imports."""

import os
import subprocess

import pytest

from conftest import run_hptune

MARKER = "hptune_venv_marker"
# /usr/bin's python3 (not this test's venv) is the one on the trainer's PATH.
SYSTEM_PATH = "/usr/bin:/bin"
TRAINER = f"""import json, os
import {MARKER}
with open(os.environ["CLOUD_ML_HP_METRIC_FILE"], "a") as f:
    f.write(json.dumps({{"loss": str({MARKER}.VALUE), "global_step": "1"}})
            + "\\n")
"""
CONFIG = """trainingInput:
  command: [python3, train.py]
  hyperparameters:
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: 1
    params:
    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}
"""


@pytest.fixture
def venv(tmp_path) -> str:
    """A venv without pip whose site-packages holds the marker module."""
    path = str(tmp_path / "trainer-venv")
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", path],
                   check=True)
    site = subprocess.run(
        [os.path.join(path, "bin", "python3"), "-c",
         "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    with open(os.path.join(site, MARKER + ".py"), "w") as f:
        f.write("VALUE = 0.25\n")
    return path


def run(tmp_path, extra_config: str = "", virtual_env: str = ""):
    (tmp_path / "train.py").write_text(TRAINER)
    (tmp_path / "config.yaml").write_text(CONFIG + extra_config)
    env = dict(os.environ, PATH=SYSTEM_PATH)
    env.pop("VIRTUAL_ENV", None)
    if virtual_env:
        env["VIRTUAL_ENV"] = virtual_env
    return run_hptune(
        ["run", str(tmp_path / "config.yaml"), "--job-id", "venv_job",
         "--db", str(tmp_path / "run.db"), "--runs-dir",
         str(tmp_path / "runs"), "--max-retries", "0", "--max-restarts", "0"],
        env=env)


def test_an_activated_venv_runs_the_trainer(tmp_path, venv):
    result = run(tmp_path, virtual_env=venv)
    assert result.returncode == 0, result.stderr
    python = os.path.join(venv, "bin", "python3")
    assert (f"trainer's Python: {python} (the activated venv, $VIRTUAL_ENV)"
            in result.stderr)
    assert "0.25" in result.stdout  # The best trial's loss, from the venv.


def test_the_config_field_runs_the_trainer(tmp_path, venv):
    python = os.path.join(venv, "bin", "python3")
    result = run(tmp_path, f"  pythonInterpreter: {python}\n")
    assert result.returncode == 0, result.stderr
    assert (f"trainer's Python: {python} (trainingInput.pythonInterpreter)"
            in result.stderr)


def test_without_either_python3_on_path_misses_the_module(tmp_path, venv):
    result = run(tmp_path)
    assert result.returncode != 0
    assert "trainer's Python: python3 on PATH" in result.stderr
    assert f"No module named '{MARKER}'" in result.stdout + result.stderr


@pytest.mark.parametrize("value, message", [
    ("bin/python3", 'must be an absolute path to a Python interpreter, such '
     'as /home/me/venv/bin/python3, got "bin/python3"'),
    ("/nonexistent/bin/python3", "/nonexistent/bin/python3"),
])
def test_a_bad_config_field_is_refused_naming_it(tmp_path, value, message):
    result = run(tmp_path, f"  pythonInterpreter: {value}\n")
    assert result.returncode != 0
    assert "pythonInterpreter" in result.stderr
    assert message in result.stderr
