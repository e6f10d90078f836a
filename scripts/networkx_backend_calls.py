"""A pytest plugin for scripts/networkx-tests.py: counts the calls the simdx networkx backend runs
itself and those its ``can_run`` refuses (networkx runs them), and writes
``{"calls": {function: n}, "refused": {"function: reason": n}}`` as JSON to the file named by
``SIMDX_NETWORKX_CALLS`` when the session ends."""

from __future__ import annotations

import functools
import json
import os
from collections import Counter

CALLS: Counter = Counter()
REFUSED: Counter = Counter()


def _counted(name, function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        CALLS[name] += 1
        return function(*args, **kwargs)

    return staticmethod(wrapper)


def pytest_configure(config):
    """Wraps every algorithm of the backend's interface in a counter."""
    from simdx.networkx_backend.interface import FUNCTIONS, BackendInterface

    for name in FUNCTIONS:
        setattr(BackendInterface, name, _counted(name, getattr(BackendInterface, name)))
    can_run = BackendInterface.can_run

    def counted_can_run(name, args, kwargs):
        verdict = can_run(name, args, kwargs)
        if verdict is not True and name in FUNCTIONS:
            REFUSED[f"{name}: {verdict}"] += 1
        return verdict

    BackendInterface.can_run = staticmethod(counted_can_run)


def pytest_sessionfinish(session, exitstatus):
    """Writes the counts."""
    path = os.environ.get("SIMDX_NETWORKX_CALLS")
    if path:
        with open(path, "w") as f:
            json.dump({"calls": dict(CALLS), "refused": dict(REFUSED)}, f)
