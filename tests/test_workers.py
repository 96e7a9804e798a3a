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


def _write_slowly(target) -> None:  # noqa: ANN001
    from generator.site.memo import replaced_whole

    with replaced_whole(target) as handle:
        handle.write(b"half")
        handle.flush()
        time.sleep(30)
        handle.write(b" and the rest")


def test_a_cancelled_worker_removes_the_file_it_was_writing(tmp_path):
    target = tmp_path / "kept.pickle"
    target.write_bytes(b"the last whole file")
    worker = Forked("slow writing", _write_slowly, target)
    temporary = target.with_name(target.name + ".tmp")
    deadline = time.monotonic() + 60
    while not (temporary.exists() and temporary.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert temporary.exists(), "the worker began writing"
    started = time.monotonic()
    worker.cancel()
    assert time.monotonic() - started < 20  # it stopped, not slept its 30 s out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.pickle"]
    assert target.read_bytes() == b"the last whole file"


def _blas_threads() -> list[int]:
    import numpy  # noqa: F401 - its BLAS is what is counted
    from threadpoolctl import threadpool_info

    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_a_worker_forked_after_numpy_was_loaded_runs_blas_on_one_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(4):  # the parent's pool, wider than one
        assert max(_blas_threads()) > 1
        assert Forked("blas threads", _blas_threads).result() == [1] * len(_blas_threads())


def test_a_worker_that_loads_numpy_itself_runs_blas_on_one_thread():
    import ast
    import subprocess
    import sys

    code = ("import sys; from generator.workers import Forked; "
            "assert 'numpy' not in sys.modules; "
            "from tests.test_workers import _blas_threads; "
            "print(Forked('blas threads', _blas_threads).result())")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "4", "OMP_NUM_THREADS": "4"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    counts = ast.literal_eval(out.stdout.strip())
    assert counts and set(counts) == {1}, out


def _answers(fail_at: int | None):  # noqa: ANN202 - a generator, as a worker may be
    for number in range(3):
        if number == fail_at:
            raise ValueError(f"no answer {number}")
        yield number


def test_a_worker_that_yields_sends_each_answer_as_it_is_made():
    worker = Forked("answers", _answers, None)
    assert [worker.answer(), worker.answer(), worker.result()] == [0, 1, 2]
    assert worker.process is None  # the last taken: the worker ended


def test_a_worker_that_fails_after_some_answers_says_so_and_ends():
    from generator.problems import PapersiteError

    worker = Forked("answers", _answers, 1)
    assert worker.answer() == 0
    with pytest.raises(PapersiteError, match="answers failed in its worker"):
        worker.answer()
    assert worker.process is None


def _big_then_mark(mark) -> object:  # noqa: ANN001
    yield b"x" * 4_000_000  # far more than a pipe holds
    mark.write_text("the work after the first answer ran")
    yield "second"


def test_a_large_answer_not_yet_taken_does_not_hold_up_the_work_after_it(tmp_path):
    mark = tmp_path / "mark"
    worker = Forked("answers", _big_then_mark, mark)
    deadline = time.monotonic() + 30
    while not mark.exists() and time.monotonic() < deadline:  # the parent has not asked for anything yet
        time.sleep(0.02)
    assert mark.exists()
    assert len(worker.answer()) == 4_000_000 and worker.result() == "second"


def _unpicklable_then_more():  # noqa: ANN202
    yield lambda: None  # pickle refuses a lambda
    yield "never taken"


def test_an_answer_the_pipe_cannot_carry_is_the_workers_error():
    from generator.problems import PapersiteError

    worker = Forked("answers", _unpicklable_then_more)
    with pytest.raises(PapersiteError, match="answers failed in its worker"):
        worker.answer()
    assert worker.process is None


def _big_then_wait(mark) -> object:  # noqa: ANN001
    yield b"x" * 4_000_000  # waits in the pipe: the parent never takes it
    mark.write_text("waiting")
    time.sleep(60)
    yield "never"


def test_a_worker_ended_while_its_answer_waits_in_the_pipe_ends_at_once(tmp_path):
    """Ended (``cancel``, Ctrl-C) while a large answer waits for its parent, the worker unwinds; it does not wait
    for that answer to be taken, which would hold it until it is killed."""
    mark = tmp_path / "mark"
    worker = Forked("answers", _big_then_wait, mark)
    deadline = time.monotonic() + 30
    while not mark.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    process = worker.process
    process.terminate()  # what cancel sends first
    process.join(30)
    assert not process.is_alive() and process.exitcode != -signal.SIGKILL
    worker.cancel()


def _take(worker: Forked) -> tuple[str, int]:
    return worker.result(), os.getpid()


def test_a_sibling_worker_may_take_a_workers_value_and_the_parent_ends_it():
    """The search worker takes related papers' answer (site/stage.py): a process that is not the worker's
    parent reads its value without waiting for it, which only the parent may do."""
    import multiprocessing

    answering = Forked("answer", _slow, 0.2)
    taker = Forked("take", _take, answering)
    value, pid = taker.result()
    assert value == "done" and pid != os.getpid()
    assert answering.process is not None  # the parent's: still its own to end
    answering.cancel()
    assert multiprocessing.active_children() == []


def _take_token(token) -> bool:  # noqa: ANN001 - in a forked worker
    return token.take()


def test_a_token_is_had_by_the_first_process_to_take_it_and_by_no_other():
    from generator.workers import Token

    token = Token()
    assert Forked("first", _take_token, token).result() is True  # a worker forked after it was made takes it
    assert token.take() is False  # then no one else: not the parent
    assert Forked("second", _take_token, token).result() is False  # nor another worker
    token.close()
    assert token.take() is False  # closed: nothing to take, and no error
    token.close()  # closing twice is closing once

    mine = Token()
    assert mine.take() is True and Forked("after", _take_token, mine).result() is False  # the parent first: the worker is refused
    mine.close()


def _do_untaken(jobs) -> None:  # noqa: ANN001 - in a forked worker
    jobs.do_untaken()


def test_shared_jobs_are_each_done_once_by_whoever_takes_them_first(tmp_path):
    from generator.workers import SharedJobs

    done = tmp_path / "done"

    def job(name: str):  # noqa: ANN202
        return lambda: done.open("a").write(f"{name} {os.getpid()}\n")

    jobs = SharedJobs(job("a"), job("b"))
    jobs.jobs[0][0].take()  # "a" taken here already (and not done: a job is its taker's)
    Forked("jobs", _do_untaken, jobs).result()
    jobs.do_untaken()  # nothing left for this process
    jobs.close()
    lines = done.read_text().split()
    assert lines[0] == "b" and lines[1] != str(os.getpid()) and len(lines) == 2


def _on_channels(fail: bool):  # noqa: ANN202 - a generator of (channel, value), as a worker with channels is
    yield "first", b"x" * 4_000_000  # far more than a pipe holds: it waits there for whoever takes it
    if fail:
        raise ValueError("no second value")
    yield "second", "the second value"


def _take_channel(worker: Forked, channel: str) -> object:  # noqa: ANN401 - in a forked worker
    return worker.answer(channel)


def test_values_on_channels_are_taken_in_any_order_by_the_parent_or_a_worker_it_forked():
    """The early worker's answers (site/textwork.py): the second value is taken while the first, larger than a
    pipe holds, still waits for its taker, and a worker forked after it takes one of them."""
    import multiprocessing

    worker = Forked("answers", _on_channels, False, channels=("first", "second"))
    assert worker.answer("second") == "the second value"
    assert len(Forked("take", _take_channel, worker, "first").result()) == 4_000_000
    assert worker.result() is None  # every value taken: the worker ends
    assert worker.process is None and multiprocessing.active_children() == []


def test_a_channel_whose_worker_failed_says_why():
    from generator.problems import PapersiteError

    worker = Forked("answers", _on_channels, True, channels=("first", "second"))
    with pytest.raises(PapersiteError, match="answers failed in its worker") as failed:
        worker.answer("second")
    assert "no second value" in str(failed.value.lines()) and worker.process is None


def _take_failed_channel(worker: Forked) -> str:
    from generator.problems import PapersiteError

    try:
        worker.answer("second")
    except PapersiteError as error:  # the worker's own error, not the sibling's failure to end it
        return " ".join(error.lines())
    return "no error"


def test_a_worker_forked_after_one_that_failed_hears_its_error_and_leaves_it_to_the_parent():
    import multiprocessing

    worker = Forked("answers", _on_channels, True, channels=("first", "second"))
    said = Forked("take", _take_failed_channel, worker).result()
    assert "answers failed in its worker" in said and "no second value" in said
    assert worker.process is not None  # still the parent's to end
    worker.cancel()
    assert multiprocessing.active_children() == []


def _big_on_a_channel(mark) -> object:  # noqa: ANN001
    yield "first", b"x" * 4_000_000  # waits in its pipe: no one takes it
    mark.write_text("every value made")


def test_a_worker_ended_while_a_channels_value_waits_ends_at_once(tmp_path):
    """Ended while it waits for a value on a channel to be taken (its sender thread blocked on the pipe), the worker
    unwinds at once rather than waiting to be killed."""
    mark = tmp_path / "mark"
    worker = Forked("answers", _big_on_a_channel, mark, channels=("first",))
    deadline = time.monotonic() + 30
    while not mark.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    process = worker.process
    process.terminate()
    process.join(30)
    assert not process.is_alive() and process.exitcode != -signal.SIGKILL
    worker.cancel()
