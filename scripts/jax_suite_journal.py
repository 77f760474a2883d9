"""pytest plugin for scripts/jax_conformance.py: a crash-proof journal of test outcomes, and resuming.

With `APU_SUITE_JOURNAL=<path>` set, every test appends `start\t<id>` before it runs and `<outcome>\t<id>`
(passed / failed / skipped) when it is done, flushed to disk at once. If the process dies inside a test (a
plugin abort kills the whole interpreter), the journal still says which tests finished and which one was
running; the runner marks that one `crashed` and starts pytest again, and this plugin then deselects every test
the journal already mentions, so the file's remaining tests still run.
"""

from __future__ import annotations

import os

try:
    import pytest
    _trylast = pytest.hookimpl(trylast=True)
except ImportError:  # imported by scripts/jax_conformance.py for read_journal, maybe under a Python without pytest
    def _trylast(fn):
        return fn

_JOURNAL = os.environ.get("APU_SUITE_JOURNAL")
_outcomes: dict[str, str] = {}


def _write(kind: str, nodeid: str) -> None:
    with open(_JOURNAL, "a") as f:
        f.write(f"{kind}\t{nodeid}\n")
        f.flush()
        os.fsync(f.fileno())


def read_journal(path) -> dict[str, str]:
    """{test id: last recorded state} where state is start / passed / failed / skipped / crashed."""
    states: dict[str, str] = {}
    try:
        with open(path) as f:
            for line in f:
                kind, _, nodeid = line.rstrip("\n").partition("\t")
                if nodeid:
                    states[nodeid] = kind
    except FileNotFoundError:
        pass
    return states


def pytest_collection_modifyitems(session, config, items):
    if not _JOURNAL:
        return
    seen = read_journal(_JOURNAL)
    if not seen:
        return
    keep = [item for item in items if item.nodeid not in seen]
    done = [item for item in items if item.nodeid in seen]
    if done:
        config.hook.pytest_deselected(items=done)
        items[:] = keep


def pytest_runtest_logstart(nodeid, location):
    if _JOURNAL:
        _write("start", nodeid)


def pytest_runtest_logreport(report):
    if not _JOURNAL:
        return
    current = _outcomes.get(report.nodeid, "passed")
    if report.failed:
        current = "failed"
    elif report.skipped and current != "failed":
        current = "skipped"  # also xfail, which pytest reports as skipped
    _outcomes[report.nodeid] = current


def pytest_runtest_logfinish(nodeid, location):
    if _JOURNAL:
        _write(_outcomes.pop(nodeid, "passed"), nodeid)


@_trylast
def pytest_configure(config):
    if _JOURNAL:
        config.pluginmanager.register(object(), "apu-suite-journal-active")
