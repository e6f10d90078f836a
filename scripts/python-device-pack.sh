#!/usr/bin/env bash
# Packs the Python package and its test dependencies for a GPU machine that has Python 3 and numpy but
# no Rust and no network: builds the abi3 wheel (release, CUDA backend built in), unpacks it into
# .peers/py/pkg (git-ignored), downloads pytest, networkx and scipy wheels for the machine's CPython
# (PYVER, default 3.12) into .peers/py/wheels, and writes .peers/py/run.sh. Then, with the device
# tool: carry [".peers/py"] and run `bash .peers/py/run.sh` (pytest with SIMDX_PYTHON_BACKEND=cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
pyver="${PYVER:-3.12}"
python3 -m venv python/.venv
# shellcheck disable=SC1091
. python/.venv/bin/activate
pip install --quiet maturin
rm -rf .peers/py && mkdir -p .peers/py/pkg .peers/py/wheels
(cd python && maturin build --release --quiet --out ../.peers/py/dist)
python3 -m zipfile -e .peers/py/dist/simdx-*-abi3-*.whl .peers/py/pkg
strip -s .peers/py/pkg/simdx/_native.abi3.so
# The dist-info stays: its entry points are how networkx finds the `simdx` backend.
rm -rf .peers/py/dist
pip download --quiet --only-binary=:all: --python-version "$pyver" --platform manylinux2014_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 --platform any \
    --no-deps -d .peers/py/wheels pytest iniconfig pluggy packaging pygments networkx scipy
cat > .peers/py/run.sh <<'RUN'
set -u
root=$(pwd)
mkdir -p /tmp/pyl && (cd /tmp/pyl && for w in "$root"/.peers/py/wheels/*.whl; do python3 -m zipfile -e "$w" .; done)
SIMDX_PYTHON_BACKEND=cuda PYTHONPATH=.peers/py/pkg:/tmp/pyl python3 -m pytest -q -p no:cacheprovider python/tests "$@"
RUN
du -sh .peers/py
