#!/usr/bin/env bash
# Installs python/ as a user would, offline on Debian 12: a venv that sees
# Debian's python3-grpcio, python3-protobuf and python3-yaml, and
# `pip install --no-build-isolation --no-index` of a copy of python/ (so the
# source tree gets no build/ or egg-info), its stubs generated from proto/,
# carrying the engine BINARY. Then, with no PATH and no HPTUNE_BINARY, as a
# new user's first program: Client.local runs a trial on the carried engine.
# Usage: install_package.sh PYTHON SOURCE_DIR WORK_DIR BINARY
set -euo pipefail
python=$1 source=$2 work=$3 binary=$4
rm -rf "$work"
mkdir -p "$work"
cp -r "$source/python" "$work/package"
rm -rf "$work/package/build" "$work/package/src/"*.egg-info
"$python" -m venv --system-site-packages "$work/venv"
HPTUNE_PROTO_DIR="$source/proto" HPTUNE_BINARY="$binary" \
  "$work/venv/bin/pip" install --quiet \
  --disable-pip-version-check \
  --no-build-isolation --no-index --no-cache-dir "$work/package"
"$work/venv/bin/python" -c "import hptune.client, hypertune"
cd "$work"
env -i HOME="$work" "$work/venv/bin/python" -c '
import hptune
with hptune.Client.local(None) as client:
    study = client.study("first", {"goal": "MINIMIZE", "params": [
        {"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}]})
    study.optimize(lambda trial: trial.suggest_float("x", 0, 1), n_trials=1)
    assert len(study.trials()) == 1
'
