#!/usr/bin/env bash
# Installs python/ as a user would, offline on Debian 12: a venv that sees
# Debian's python3-grpcio, python3-protobuf and python3-yaml, and
# `pip install --no-build-isolation --no-index` of a copy of python/ (so the
# source tree gets no build/ or egg-info), its stubs generated from proto/.
# Usage: install_package.sh PYTHON SOURCE_DIR WORK_DIR
set -euo pipefail
python=$1 source=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cp -r "$source/python" "$work/package"
rm -rf "$work/package/build" "$work/package/src/"*.egg-info
"$python" -m venv --system-site-packages "$work/venv"
HPTUNE_PROTO_DIR="$source/proto" "$work/venv/bin/pip" install --quiet \
  --disable-pip-version-check \
  --no-build-isolation --no-index --no-cache-dir "$work/package"
"$work/venv/bin/python" -c "import hptune.client, hypertune"
