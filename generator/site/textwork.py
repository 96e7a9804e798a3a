"""Work on the papers' texts beside the build: related papers and the paper map.

Each kind (``Related``, ``MapPoints``) is a function of the papers' texts (``texts_of``), kept in
the memo by their fingerprint and computed, where the build may fork, in a worker (``workers.py``).

A worker may start as the build begins (``start_early``), before the check has read a page: the
check and the catalog are one core's work for the first second and a half of an edit at 11,672
papers, and the other core idles. Such a worker reads each page's share of the texts itself,
every kind's in one pass, kept by the page's stat and bytes in the memo of pages (``PAGES_KIND``),
so an edit parses its own pages alone. The build takes its answer only if the pages it read are the ones
the check read, byte for byte (``KeptWork.result``); else the build makes the texts of the
checked records and answers itself. A worker started after the check (a clean build, or one
where many files changed: an early one would parse every page the check parses) keeps the
memo of pages from the checked records, for the next build's early one.

In: the records (or, early, the papers folder); the kind's memo. Out: the kind's result.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

from generator.config import ProjectConfig
from generator.inputs import open_regular
from generator.problems import PapersiteError
from generator.pages.folder import PageLabels, page_count, page_names, record_of_bytes
from generator.pages.record import PaperRecord
from generator.site.memo import PAGE_SHARDS, RACY_NS, Fingerprints, Memo, checked_scope, checked_stamps, content_hash, kind_kept, stat_stamp
from generator.workers import Forked, can_fork

RELATED_IN_WORKER_FROM = 500  # papers; below this the fork is not worth it


def worth_a_worker(papers: int) -> bool:
    """Whether the kinds are made in forked workers for this many papers."""
    return can_fork() and papers >= RELATED_IN_WORKER_FROM


class KeptWork:
    """Work on texts that a build keeps in the memo: the last build's result while the texts have the
    same fingerprint, else computed, in a forked worker with ``fork``. What the computation leaves for
    the next is kept too (the texts' term counts, ``termcounts.py``; related papers' postings and
    scored lists, ``related.Scored``), so an edit tokenises only the texts the last one did not count.
    Each kind names its memo and its computation, imported only when it runs (numpy and scipy cost
    a fifth of a second to load).

    ``early``: the kind's worker started before the check (``start_early``), and ``read``: the pages
    the check read, label -> digest of their bytes (``pages_read``). ``checked``: the check's memo
    (``memo.CheckedPages``), from which a forked worker keeps the memo of pages an early one reads."""

    KIND = ENTRY = LABEL = ""
    KEPT = "kept for the next computation"  # its term counts, and what else it starts from

    def __init__(self, config: ProjectConfig, records: list[PaperRecord], fork: bool, prints: Fingerprints,
                 early: "Early | None" = None, read: dict[str, str] | None = None, texts: Any = None,
                 checked: Memo | None = None) -> None:
        self.records, self.config, self.prints = records, config, prints
        self.value = self.kept_counts = self.worker = None
        self.early, self.read, self.checked = early, read, checked
        if early is not None:
            return
        if fork:
            # the texts (16 MB of titles and abstracts at 11,672 papers), their fingerprint and the memo
            # (30 MB of related papers and map) are made and read by the worker, which answers from the
            # memo where the texts are as they were: the build goes on meanwhile
            self.worker = Forked(self.LABEL, self._kept_or_computed)
            return
        self._read(texts)

    @staticmethod
    def item_of(record: PaperRecord) -> Any:
        """What the texts hold of one paper."""
        raise NotImplementedError

    @staticmethod
    def in_order(items: list) -> list:
        """The papers' items as the texts hold them."""
        raise NotImplementedError

    @classmethod
    def texts_of(cls, records: list[PaperRecord]) -> list:
        """All the computation reads of the papers (what its result is kept by)."""
        return cls.in_order([cls.item_of(record) for record in records])

    def _read(self, texts: Any = None) -> None:
        from generator.site.termcounts import COUNTS_VERSION

        self.texts = self.texts_of(self.records) if texts is None else texts
        self.key = self.prints.of(self.texts)
        self.cache = Memo(self.config, self.KIND)
        self.value = self.cache.get(self.ENTRY, self.key)
        self.kept_counts = None if self.value is not None else self.cache.get(self.KEPT, COUNTS_VERSION)

    @staticmethod
    def computation() -> Callable[[Any, Any], tuple[Any, Any]]:
        """(texts, what the last computation kept or None) -> (result, what the next one may start from)."""
        raise NotImplementedError

    def result(self) -> Any:
        """The result for these texts, computed (and kept with the texts' counts) unless it was kept."""
        if self.value is None and self.early is not None:
            early, self.early = self.early, None
            self.value = early.value_if_read(self.read)
            if self.value is None:  # it read other pages than the check did (one changed meanwhile)
                self._read()
        if self.value is None:
            self.value = self.worker.result() if self.worker is not None else self._computed()
            self.worker = self.kept_counts = None
        return self.value

    def _kept_or_computed(self) -> Any:
        self._read()
        value = self.value if self.value is not None else self._computed()
        if self.checked is not None:
            keep_page_items(self.config, self.checked)
        return value

    def _computed(self) -> Any:
        """The result, computed and kept in the memo with what the next computation starts from. In the
        worker, when there is one: what is kept (tens of MB at 11,672 papers) is then saved there and
        never crosses the pipe, and only the result comes back to the build."""
        from generator.site.termcounts import COUNTS_VERSION

        value, kept = self.computation()(self.texts, self.kept_counts)
        self.cache.put(self.ENTRY, self.key, value)
        self.cache.put(self.KEPT, COUNTS_VERSION, kept)
        self.cache.save()
        return value

    def cancel(self) -> None:
        for worker in (self.worker, self.early):
            if worker is not None:
                worker.cancel()


class Related(KeptWork):
    """Related papers, kept by the texts they compare (``related.related_texts``: all
    ``related_of_texts`` is given)."""

    KIND, ENTRY, LABEL = "related", "papers", "related papers"

    @staticmethod
    def item_of(record: PaperRecord) -> tuple[str, str]:
        from generator.site.related import related_item

        return related_item(record)

    @staticmethod
    def in_order(items: list) -> list:
        from generator.site.related import related_in_order

        return related_in_order(items)

    @staticmethod
    def computation() -> Callable[[Any, Any], tuple[dict[str, list[str]], Any]]:
        from generator.site.related import related_and_counts

        return related_and_counts


class MapPoints(KeptWork):
    """The paper map's points, kept by the texts the layout reads (``paper_map.map_texts``)."""

    KIND, ENTRY, LABEL = "map", "points", "paper map"

    @staticmethod
    def item_of(record: PaperRecord) -> Any:
        from generator.site.paper_map import map_item

        return map_item(record)

    @staticmethod
    def in_order(items: list) -> list:
        from generator.site.paper_map import map_in_order

        return map_in_order(items)

    @staticmethod
    def computation() -> Callable[[Any, Any], tuple[dict[str, tuple[int, int]], Any]]:
        from generator.site.paper_map import layout_and_counts

        return layout_and_counts


KINDS = (Related, MapPoints)


class Early:
    """A kind's answer from the worker started before the check (``start_early``)."""

    def __init__(self, kind: type[KeptWork], worker: "EarlyWorker") -> None:
        self.kind, self.worker = kind, worker

    def value_if_read(self, read: dict[str, str] | None) -> Any:
        """The worker's result if it read the pages ``read`` names (label -> digest), byte for byte; else None."""
        pages, value = self.worker.answer(self.kind)
        return value if pages == read else None

    def cancel(self) -> None:
        self.worker.cancel()


class EarlyWorker:
    """One worker for every kind, answering each as it is made (``_answers_from_pages``): one process loads numpy
    and scipy (~0.3 CPU s each time at 11,672 papers) and shares the cores with the check, not two. Each kind's
    answer comes on a pipe of its own, so the build and its search worker may each take one (stage.Pending)."""

    def __init__(self, config: ProjectConfig) -> None:
        self.worker: Forked | None = Forked("related papers and the paper map", _answers_from_pages, KINDS, config,
                                            channels=tuple(kind.KIND for kind in KINDS))
        self.taken: set[str] = set()

    def answer(self, kind: type[KeptWork]) -> tuple[dict[str, str], Any]:
        """The pages the worker read for ``kind`` and its result (each kind's is taken once, by one process; the
        one that took them all ends the worker)."""
        if self.worker is None:
            raise PapersiteError(f"{kind.LABEL}: the worker was stopped")
        answer = self.worker.answer(kind.KIND)
        self.taken.add(kind.KIND)
        if len(self.taken) == len(KINDS):
            self.worker.result()  # it ends once its last answer was taken
            self.worker = None
        return answer

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.worker = None


# Files whose bytes the build's stamps read again (their stat changed) past which no worker starts early: each would
# parse those pages beside the check, which parses them too (a clean build: every page, ~5 CPU s at 11,672 papers)
EARLY_AT_MOST_CHANGED = 256


def start_early(config: ProjectConfig, changed: int) -> dict[str, Early]:
    """The kinds' worker (one for them all: ``EarlyWorker``) by kind, started now; none where the build may not
    fork, for few papers, where no memo of pages is kept (a clean build) or where more than
    ``EARLY_AT_MOST_CHANGED`` files ``changed``."""
    if changed > EARLY_AT_MOST_CHANGED or not worth_a_worker(page_count(config)):
        return {}
    if not kind_kept(config, PAGES_KIND):
        return {}
    worker = EarlyWorker(config)
    return {kind.KIND: Early(kind, worker) for kind in KINDS}


def pages_read(pages: Memo) -> dict[str, str]:
    """The pages a check read through ``pages`` (``memo.CheckedPages``) that hold a record: label -> digest."""
    return {label: digest for label, (digest, _, _) in checked_stamps(pages).items()}


# the memo of pages the early worker reads: each page's items of every kind (``page_items``)
PAGES_KIND = "early-pages"


def _pages_memo(config: ProjectConfig) -> Memo:
    return Memo(config, PAGES_KIND, scope=checked_scope(config), shards=PAGE_SHARDS)


def _items_of(record: PaperRecord) -> tuple:
    """A page's items, one a kind in ``KINDS``' order."""
    return tuple(kind.item_of(record) for kind in KINDS)


def keep_page_items(config: ProjectConfig, pages: Memo) -> None:
    """Keep the memo of pages (``page_items``) from the pages a check read through ``pages``. One worker
    keeps it for every kind (stage.py hands the checked pages to related papers' only)."""
    memo = _pages_memo(config)
    for label, (digest, stamp, record) in checked_stamps(pages).items():
        kept = memo.get(label, digest)
        if not (isinstance(kept, tuple) and kept[0] == stamp):
            memo.put(label, digest, (stamp, _items_of(record)))
    memo.save()


def _answers_from_pages(kinds: tuple[type[KeptWork], ...], config: ProjectConfig) -> Iterator[tuple[str, tuple[dict[str, str], Any]]]:
    """In the early worker: for each kind in turn, its name, the pages it read (as ``pages_read`` names them) and
    its result for their texts."""
    items, read = page_items(config)
    for kind in kinds:
        yield kind.KIND, (read, kind(config, [], fork=False, prints=Fingerprints(), texts=kind.in_order(items[kind.KIND])).result())


def page_items(config: ProjectConfig) -> tuple[dict[str, list], dict[str, str]]:
    """Each kind's ``item_of`` of the record of every page that holds one (by the kind's name), and those
    pages (label -> digest of their bytes), in one pass over the pages. Kept in ``PAGES_KIND`` by each page's
    stat and bytes: a page whose stat is the one it had when last read is not read again, one whose bytes
    are is not parsed again (a pass a kind cost ~0.25 CPU s at 11,672 papers). A page that is no regular
    file is left out (the check says what it is; the build then answers itself)."""
    memo = _pages_memo(config)
    labels = PageLabels(config)
    items: dict[str, list] = {kind.KIND: [] for kind in KINDS}
    read = {}
    now = time.time_ns()
    folder = str(config.papers_dir)
    for name in page_names(config):  # names and strings, not paths: a third of the pass at 11,672 pages
        label, path = labels.of_name(name), os.path.join(folder, name)
        try:
            seen = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(seen.st_mode):
            continue
        stamp = stat_stamp(seen)
        kept = memo.old.get(label)
        kept = kept if isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[1], tuple) and len(kept[1]) == 2 \
            and (kept[1][1] is None or isinstance(kept[1][1], tuple) and len(kept[1][1]) == len(KINDS)) else None
        if kept is not None and kept[1][0] == stamp:
            digest, (_, each) = kept
            memo.new[label] = kept  # as read: its shard is not written again
        else:
            try:
                with open_regular(path) as handle:
                    data = handle.read()
            except OSError:
                continue
            digest = content_hash(data)
            if kept is not None and kept[0] == digest:
                each = kept[1][1]
            else:
                record = record_of_bytes(Path(path), label, data)
                each = _items_of(record) if record is not None else None
            # a file changed this close to its reading may change again without its stat changing
            memo.put(label, digest, (stamp if now - seen.st_mtime_ns > RACY_NS else None, each))
        if each is not None:
            for kind, item in zip(KINDS, each):
                items[kind.KIND].append(item)
            read[label] = digest
    memo.save()
    return items, read
