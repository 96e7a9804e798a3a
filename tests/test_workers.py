"""generator/workers.py: a forked worker does its work and says nothing of a Ctrl-C; its parent speaks."""

from __future__ import annotations

import os
import signal
import time

import pytest

from generator.workers import Forked, can_fork

pytestmark = pytest.mark.skipif(not can_fork(), reason="no fork on this platform")


def _slow(seconds: float) -> str:
    time.sleep(seconds)
    return "done"


def test_ctrl_c_reaching_a_forked_worker_prints_nothing_and_costs_nothing(capfd):
    worker = Forked("slow work", _slow, 1.0)
    time.sleep(0.2)  # (SIGINT before the child set its handler would end it as Python's default does)
    os.kill(worker.process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does to the whole group
    assert worker.result() == "done"
    assert "Traceback" not in capfd.readouterr().err


def test_a_cancelled_worker_is_gone():
    worker = Forked("slow work", _slow, 30)
    pid = worker.process.pid
    worker.cancel()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
