"""Work beside the main process: a forked child, or a thread where forking is unsafe.

The pipeline is plain Python on one core; the target machine has two. A forked
child shares the parent's memory (records, catalog, models) instead of receiving
a pickled copy, and only its result comes back through a pipe. Used by the site
stage (related papers, the search index) and by enrichment (topics beside keywords).
Fork only from a process with no other threads (the command line): ``papersite
serve`` runs each rebuild as a ``papersite build`` child process for that reason.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from types import GeneratorType

from generator.problems import PapersiteError, Problem


STOP_WAIT = 5.0  # seconds a cancelled worker has to unwind before it is killed


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def one_thread_of_math() -> None:
    """The numerical libraries' thread pools held to one thread in this process: a worker shares the
    cores with its parent and the other workers, and OpenBLAS's threads spin while they wait for work,
    taking a core from them. On two busy cores the map's layout cost 4.0 CPU s with OpenBLAS's
    two threads against 0.7 s with one (BENCHMARKS.md, issue 31 part 6)."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"  # read when numpy is first imported
    if "numpy" in sys.modules:  # imported before the fork: its pool is already sized
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)


def _send_each(writer, values: Iterator) -> None:  # noqa: ANN001 (a multiprocessing Connection)
    """Each value sent as it is made (``Forked.answer``), by a thread, while the next is made: a value larger
    than the pipe holds waits there until the parent asks for it, and the work after it would wait too."""
    sending: threading.Thread | None = None
    failed: list[BaseException] = []  # what a send raised (a value pickle refuses): raised here, so the parent hears it

    def send(value: object) -> None:
        try:
            writer.send(("ok", value))
        except BaseException as error:  # noqa: BLE001 - handed to the worker's own thread
            failed.append(error)

    def sent() -> None:
        if sending is not None:
            sending.join()
        if failed:
            raise failed[0]

    try:
        for value in values:
            sent()
            sending = threading.Thread(target=send, args=(value,), daemon=True)
            sending.start()
    except _Stopped:
        raise  # the parent no longer listens: the thread, blocked on a full pipe, ends with the process
    except BaseException:
        sent()  # one writer on the pipe at a time: the error is sent after the last value
        raise
    sent()  # the last value whole before the worker ends


def _send_on_channels(writers: dict, pairs: Iterator) -> None:  # noqa: ANN001 (name -> multiprocessing Connection)
    """Each ``(channel, value)`` pair's value sent on its channel's pipe by a thread of its own, while the next is
    made: values on different channels are taken by whoever asks for each, in any order (``Forked.answer``), so no
    send waits for another. Returns once every value was taken; a value pickle refuses is raised here."""
    sending: list[threading.Thread] = []
    failed: list[BaseException] = []

    def send(writer, value: object) -> None:  # noqa: ANN001
        try:
            writer.send(("ok", value))
        except BaseException as error:  # noqa: BLE001 - handed to the worker's own thread
            failed.append(error)

    for channel, value in pairs:
        sending.append(threading.Thread(target=send, args=(writers[channel], value), daemon=True))
        sending[-1].start()
    for thread in sending:
        thread.join()
    if failed:
        raise failed[0]


class _Stopped(SystemExit):
    """Raised in a worker that its parent ends (``cancel``, or multiprocessing at exit); a SystemExit,
    so that no ``except Exception`` holds it and multiprocessing ends the child without a word."""


def _stop(signum, frame) -> None:  # noqa: ANN001
    raise _Stopped


def _run_child(writer, fn, args, nice: int, channels: dict) -> None:  # noqa: ANN001 (runs in the forked child)
    # Ctrl-C reaches the whole process group: the parent says "interrupted" once and ends this
    # worker (cancel, or multiprocessing at exit); a child's own traceback would be noise.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Ended by its parent, the worker unwinds rather than dying where it stands: a file it was
    # writing is removed by the writer's own cleanup (memo.replaced_whole), not left half done.
    signal.signal(signal.SIGTERM, _stop)
    if nice:
        os.nice(nice)
    # What the parent made is never freed here: the collector leaves it alone rather than walking
    # (and, copy-on-write, copying) the parent's heap at each full collection (~0.6 CPU s an edit).
    gc.freeze()
    one_thread_of_math()
    try:
        value = fn(*args)
        if channels:
            _send_on_channels(channels, value)
            writer.send(("ok", None))
        elif isinstance(value, GeneratorType):
            _send_each(writer, value)
        else:
            writer.send(("ok", value))
    except _Stopped:
        pass  # the parent no longer listens
    except BaseException:  # noqa: BLE001 - reported to the parent, which raises
        writer.send(("error", traceback.format_exc()))
    finally:
        writer.close()
        for channel in channels.values():
            channel.close()


class Token:
    """One token for this process and the workers it forks after making it: whoever takes it first has it, and
    every other ``take`` is refused. A byte in a pipe whose writing end is closed, read without waiting: the pipe
    gives it to one reader (no shared memory or semaphore, which not every machine offers)."""

    def __init__(self) -> None:
        self._read, write = os.pipe()
        os.set_blocking(self._read, False)
        os.write(write, b"t")
        os.close(write)

    def take(self) -> bool:
        if self._read < 0:
            return False
        try:
            return os.read(self._read, 1) == b"t"
        except OSError:  # (taken meanwhile: the pipe is empty)
            return False

    def close(self) -> None:
        if self._read >= 0:
            os.close(self._read)
            self._read = -1


class SharedJobs:
    """Jobs this process or a worker it forks after making them may do, each done once, by whoever takes its
    ``Token`` first: each process does the jobs no one has taken when it gets to them (``do_untaken``)."""

    def __init__(self, *jobs: Callable[[], object]) -> None:
        self.jobs = [(Token(), job) for job in jobs]

    def do_untaken(self) -> None:
        for token, job in self.jobs:
            if token.take():
                job()

    def close(self) -> None:
        for token, _ in self.jobs:
            token.close()


class Forked:
    """``fn(*args)`` in a forked child; ``result()`` waits for its value, and raises
    ``PapersiteError`` with the child's traceback if it failed.

    ``channels``: names of pipes of their own, on which a generator ``fn`` sends what it yields as
    ``(channel, value)`` pairs: each value is taken by ``answer(channel)``, by the parent or a worker it forks
    later, whoever asks first, whatever the order the values were made in."""

    def __init__(self, what: str, fn, *args, nice: int = 0, channels: tuple[str, ...] = ()) -> None:  # noqa: ANN001
        context = multiprocessing.get_context("fork")
        self.what = what
        self.reader, writer = context.Pipe(duplex=False)
        pipes = {channel: context.Pipe(duplex=False) for channel in channels}
        self.channels = {channel: reader for channel, (reader, _) in pipes.items()}
        writers = {channel: channel_writer for channel, (_, channel_writer) in pipes.items()}
        self.process = context.Process(target=_run_child, args=(writer, fn, args, nice, writers), daemon=True)
        self.process.start()
        self.parent = os.getpid()
        writer.close()
        for channel_writer in writers.values():  # the child's alone: its end ends the channel (EOF)
            channel_writer.close()

    def result(self):  # noqa: ANN201
        """The worker's value (its last, where ``fn`` yields several: ``answer`` takes those before). Another
        worker forked from the parent may take it (the search worker takes related papers'); the parent then
        ends the worker (``cancel``): only a process's parent can wait for it."""
        value = self.answer()
        if os.getpid() == self.parent:
            self.process.join()
        self.process = None
        self._close()
        return value

    def _close(self) -> None:
        self.reader.close()
        for reader in self.channels.values():
            reader.close()

    def answer(self, channel: str | None = None):  # noqa: ANN201
        """The next value the worker sends: its only one, or the next one a generator ``fn`` yields; with
        ``channel``, the value it sent on that channel."""
        if self.process is None:
            raise PapersiteError(f"{self.what}: the worker was stopped")
        try:
            # before join: a large result would fill the pipe
            status, value = (self.reader if channel is None else self.channels[channel]).recv()
        except EOFError:
            status, value = "error", "the worker ended without a result"
            if channel is not None:  # it ended: why is on its own pipe (an error), if no one took that already
                with contextlib.suppress(EOFError, OSError):
                    status, value = self.reader.recv()
                if status == "ok":
                    status, value = "error", f"the worker ended without a value for {channel}"
        if status != "ok":
            self.cancel()
            raise PapersiteError(Problem("", 0, f"{self.what} failed in its worker:", detail=value))
        return value

    def cancel(self) -> None:
        if self.process is not None:
            if os.getpid() == self.parent:  # only a parent may end its child: a sibling that took a value closes its pipes
                self.process.terminate()
                self.process.join(STOP_WAIT)  # it unwinds (removing what it was writing) between two steps
                if self.process.is_alive():  # held in one long native call
                    self.process.kill()
                    self.process.join()
            self.process = None
            self._close()
