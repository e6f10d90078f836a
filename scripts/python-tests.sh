#!/usr/bin/env bash
# The Python package's tests: builds the `simdx` package (python/, with maturin) into a virtual
# environment at python/.venv, with its test extras (pytest, scipy, networkx), and runs pytest.
# Extra arguments go to pytest. Then networkx's own tests of the functions the networkx backend
# implements, run with the backend (scripts/networkx-tests.py; its table is in python/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv python/.venv
# shellcheck disable=SC1091
. python/.venv/bin/activate
pip install --quiet --upgrade pip
pip install --quiet "./python[test]"
pytest -q python/tests "$@"
python scripts/networkx-tests.py
