"""generator/ingest/corpus.py: the listings of the corpus folder, and a problem for each entry papersite may not read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.config import load_config
from generator.ingest.corpus import corpus_files
from generator.ingest.sources import source_files
from generator.problems import PapersiteError

ROW = '{"title": "Graph Transformers at Scale", "abstract": "Attention over millions of nodes.", "authors": ["Ann Zhou", "Bo Lee"]}\n'


def _project(tmp_path: Path, settings: str = "site_name: x\n") -> Path:
    (tmp_path / "papersite.yml").write_text(settings, encoding="utf-8")
    (tmp_path / "corpus").mkdir()
    return tmp_path


def test_every_listing_of_the_corpus_but_folders_dot_files_and_references(tmp_path, monkeypatch):
    root = _project(tmp_path, "site_name: x\nreferences: [corpus/ref.jsonl]\n")
    for name in ("b.jsonl", "a.txt", ".hidden.jsonl", "ref.jsonl"):
        (root / "corpus" / name).write_text(ROW, encoding="utf-8")
    (root / "corpus" / "references").mkdir()
    monkeypatch.chdir(root)
    config = load_config(root)
    assert [p.name for p in corpus_files(config)[0]] == ["a.txt", "b.jsonl"]
    assert source_files([], config) == [Path("corpus/a.txt"), Path("corpus/b.jsonl")]  # as the user names them


def test_a_corpus_entry_papersite_may_not_read_is_a_problem_naming_it(tmp_path, monkeypatch):
    root = _project(tmp_path)
    (root / "corpus" / "good.jsonl").write_text(ROW, encoding="utf-8")
    os.mkfifo(root / "corpus" / "pipe.jsonl")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.jsonl"
    outside.write_text(ROW, encoding="utf-8")
    (root / "corpus" / "link.jsonl").symlink_to(outside)
    monkeypatch.chdir(root)
    found, problems = corpus_files(load_config(root))
    assert [p.name for p in found] == ["good.jsonl"]
    assert [(p.path, p.line) for p in problems] == [("corpus/link.jsonl", 1), ("corpus/pipe.jsonl", 1)]
    assert "leads outside the project" in problems[0].message and "FIFO" in problems[1].message
    with pytest.raises(PapersiteError):
        source_files([], load_config(root))

