"""The installed package: its version is the server's, its stubs are
generated from proto/, and a trainer can import hypertune without gRPC."""

import glob
import os
import re
import subprocess
import sys

import hptune
from conftest import HPTUNE, SOURCE_DIR


def test_version_matches_the_server():
    out = subprocess.run([HPTUNE, "--version"], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    assert out.strip() == f"hptune {hptune.__version__}"
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
        declared = re.search(r"project\(hptune VERSION (\S+)", f.read())
    assert declared.group(1) == hptune.__version__


def test_stubs_are_generated_not_committed():
    from hptune.v1 import study_service_pb2_grpc

    installed = os.path.dirname(study_service_pb2_grpc.__file__)
    assert "DO NOT EDIT" in open(os.path.join(
        installed, "study_service_pb2_grpc.py")).read()
    services = {os.path.basename(p)[:-len(".proto")] for p in glob.glob(
        os.path.join(SOURCE_DIR, "proto", "hptune", "v1", "*.proto"))}
    assert {n[:-len("_pb2.py")] for n in os.listdir(installed)
            if n.endswith("_pb2.py")} == services
    tracked = subprocess.run(["git", "-C", SOURCE_DIR, "ls-files", "python"],
                             stdout=subprocess.PIPE, text=True).stdout
    assert "_pb2" not in tracked


def test_reporting_needs_no_grpc(tmp_path):
    # A trainer's interpreter may lack grpc: hptune.report must not need it.
    blocker = tmp_path / "grpc.py"
    blocker.write_text("raise ImportError('grpc is not installed here')\n")
    out = subprocess.run(
        [sys.executable, "-c",
         "import hptune, hypertune\n"
         "hptune.report(step=1, loss=0.5)\n"
         "import sys; print('grpc' in sys.modules)"],
        env=dict(os.environ, PYTHONPATH=str(tmp_path)), cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert out.returncode == 0, out.stdout
    assert out.stdout.splitlines() == ["loss=0.5 global_step=1", "False"]
