"""Under CI a skipped test is a failed one.

A test skips with its reason when this machine lacks what it needs (git, Zensical, Chromium,
actionlint, the committed pages, the real-abstracts dataset in ../shared/datasets). CI installs
all of them, so there a skip can only mean a group of tests silently stopped running: with
``CI`` set, every skip (``pytest.skip``, ``skipif``, a module-level skip, a fixture that skips)
is reported as a failure that names the test and the reason.
"""

from __future__ import annotations

import os

import pytest


def _reason(longrepr: object) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _fail_if_ci(report: pytest.CollectReport | pytest.TestReport, where: str) -> None:
    if report.skipped and os.environ.get("CI") and not hasattr(report, "wasxfail"):
        reason = _reason(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"{where}: skipped ({reason}), but CI is set, so it must run"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    _fail_if_ci(outcome.get_result(), item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> object:
    outcome = yield
    _fail_if_ci(outcome.get_result(), collector.nodeid)


# Hypothesis: the same examples on every run, so a suite's outcome never depends on a random seed
# (a fresh clone once failed on an example no earlier run had drawn). A failure prints the blob
# that reproduces it; `--hypothesis-profile=explore` draws new examples on purpose. No deadline:
# Hypothesis' default fails an example slower than 200 ms, a wall-clock assertion that a shared,
# loaded machine breaks (test_termcounts did at load 13); a test that can hang has its own timeout.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("papersite", derandomize=True, print_blob=True, deadline=None)
_hypothesis_settings.register_profile("explore", derandomize=False, print_blob=True, deadline=None)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "papersite"))


# A suite started in the background of a shell without job control (`( pytest & )`, some CI
# runners) has SIGINT ignored, and every process it starts inherits that: the Ctrl-C tests
# (test_cli.py) would send a signal the build never hears and wait 300 s on it. The tests speak
# for a user at a terminal, whose Ctrl-C is heard: the suite hears it, so its children do.
import signal as _signal  # noqa: E402

if _signal.getsignal(_signal.SIGINT) is _signal.SIG_IGN:
    _signal.signal(_signal.SIGINT, _signal.default_int_handler)
