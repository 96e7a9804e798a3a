import json
import os

import pytest
from types import SimpleNamespace

from generator.config import load_config
from generator.enrich.evaluate import run_eval


def test_eval_json_has_the_documented_shape(tmp_path, capsys):
    (tmp_path / "corpus").mkdir()
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        json.dumps({"title": "Graph neural networks", "abstract": "Message passing on graphs.", "topic": "Deep Learning · Graph Neural Networks"}) + "\n",
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    assert run_eval(SimpleNamespace(labels=[labels], json=True), config) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) >= {"topics_leave_one_out", "topics_labels", "keywords"}
    result = report["topics_labels"][str(labels)]
    assert result["papers"] == 1 and 0.0 <= result["area_accuracy"] <= 1.0
    assert [band["band"] for band in result["calibration"]][0] == "0.0-0.2"
    assert sum(band["n"] for band in result["area_calibration"]) == 1  # the area's own confidence, scored alone
    assert {"keywords_per_paper", "share_used_by_2_or_more", "top_30"} <= set(report["keywords"])


# --------------------------------------------------------------------------- figures on a labelled fixture

from generator.enrich.evaluate import confidence_bands  # noqa: E402
from generator.pages.record import PaperRecord, SourceRef, Topic, render_page  # noqa: E402

# Four papers a reader labels at a glance. The model gets the first and third wholly right, the
# second's area right (a policy-gradient paper it files under Deep RL, labelled Policy Search) and
# the fourth's area wrong (a privacy paper labelled as theory): area 3/4, sub-area 2/4.
LABELLED = [
    ("Graph neural networks for molecules", "Message passing graph neural networks over molecular graphs predict properties.",
     "Deep Learning · Graph Neural Networks"),
    ("Policy gradient for robot control", "We propose a reinforcement learning policy gradient method for continuous control of robots.",
     "Reinforcement Learning · Policy Search"),
    ("Diffusion models for image generation", "Score-based diffusion models generate high fidelity images.",
     "Deep Learning · Generative Models and Autoencoders"),
    ("Privacy in federated learning", "Differential privacy guarantees for federated learning clients.",
     "Theory · Learning Theory"),
]


def test_confidence_bands_count_and_score_each_band():
    answers = [(0.1, True), (0.15, False), (0.5, True), (0.55, True), (0.59, False), (0.8, True), (1.0, False)]
    bands = {band["band"]: band for band in confidence_bands(answers)}
    assert bands["0.0-0.2"] == {"band": "0.0-0.2", "n": 2, "accuracy": 0.5, "mean_confidence": 0.125}
    assert bands["0.2-0.4"] == {"band": "0.2-0.4", "n": 0, "accuracy": None, "mean_confidence": None}
    assert bands["0.4-0.6"] == {"band": "0.4-0.6", "n": 3, "accuracy": 0.667, "mean_confidence": 0.547}
    assert bands["0.8-1.0"] == {"band": "0.8-1.0", "n": 2, "accuracy": 0.5, "mean_confidence": 0.9}  # 1.0 is in the top band


def test_eval_reports_the_figures_a_reader_computes_by_hand(tmp_path, capsys):
    (tmp_path / "corpus").mkdir()
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"title": t, "abstract": a, "topic": topic}) + "\n" for t, a, topic in LABELLED),
                      encoding="utf-8")
    papers = tmp_path / "site_src" / "papers"
    papers.mkdir(parents=True)
    keyword_sets = [["graphs", "molecules", "chemistry"], ["graphs", "molecules", "robots"], ["graphs", "images", "privacy"], ["graphs"]]
    for n, ((title, abstract, topic), keywords) in enumerate(zip(LABELLED, keyword_sets)):
        area, subarea = topic.split(" · ")
        record = PaperRecord(id=f"p{n}", slug=f"paper-{n}", title=title, authors=["A. Author"], abstract=abstract,
                             topic=Topic(area, subarea, "listing"), keywords=keywords, sources=[SourceRef("l.txt", n, "numbered")])
        (papers / f"paper-{n}.md").write_text(render_page(record), encoding="utf-8")
    config = load_config(tmp_path)
    assert run_eval(SimpleNamespace(labels=[labels], json=True), config) == 0
    report = json.loads(capsys.readouterr().out)
    for result in (report["topics_labels"][str(labels)], report["topics_leave_one_out"]):
        assert result["papers"] == 4 and result["papers_with_subarea"] == 4
        assert result["area_accuracy"] == 0.75
        assert result["subarea_accuracy"] == 0.5
        assert result["area_only_answers"] == 0
        assert sum(band["n"] for band in result["calibration"]) == 4
        right = sum(round(band["accuracy"] * band["n"]) for band in result["calibration"] if band["n"])
        assert right == 2  # the whole answer is right for two papers
        area_right = sum(round(band["accuracy"] * band["n"]) for band in result["area_calibration"] if band["n"])
        assert area_right == 3
    assert report["keywords"] == {
        "papers": 4,
        "keywords_per_paper": {"1": 1, "3": 3},
        "papers_with_fewer_than_3": 1,
        "distinct_keywords": 6,
        "share_used_by_2_or_more": round(2 / 6, 3),
        "top_30": [["graphs", 4], ["molecules", 2], ["chemistry", 1], ["images", 1], ["privacy", 1], ["robots", 1]],
    }
    assert report["source"] == "pages"


@pytest.mark.parametrize(("content", "line", "message"), [
    (b'{"title": "a", "abstract": "b", "topic": "Theory"}\n\xff\xfe\n', 2, "not UTF-8 text"),
    (b'\xff\xfe{"title": "a"}\n', 1, "not UTF-8 text (invalid start byte at byte 0)"),
    (b'', 1, "no labelled paper"),
    (b'\n  \r\n\n', 1, "no labelled paper"),
    (b'\n{"title": "a"}\n', 2, "expected a JSON object with title, abstract and topic"),
    (b'[1, 2]\n', 1, "expected a JSON object"),
    (b'null\n', 1, "expected a JSON object"),
    (b'{"topic": "Theory", "title": 5}\n', 1, "expected a JSON object"),
    (b'{"topic": ["Theory"]}\n', 1, "expected a JSON object"),
    (b'{"topic": "Theory", "title": "a", "title": "b"}\n', 1, "appears twice"),
    (b'{"topic": \n', 1, "not valid JSON"),
    ('{"topic": "·"}\n'.encode(), 1, "topic area must be a name"),
    ('{"topic": "Theory · "}\n'.encode(), 1, "topic sub-area must be a name"),
    (b'{"topic": "Theory"}\r\n{"topic": "Theroy"}\r\n', 2, "topic area 'Theroy' is not in the taxonomy"),
    ('{"topic": "Theory · Learning Theory · More"}\n'.encode(), 1, "is not in area 'Theory' of the taxonomy"),
])
def test_a_bad_labels_file_is_a_located_error(tmp_path, capsys, content, line, message):
    from generator.cli import main

    labels = tmp_path / "labels.jsonl"
    labels.write_bytes(content)
    assert main(["--project", str(tmp_path), "eval", "--labels", str(labels)]) == 2
    err = capsys.readouterr().err
    assert f"{labels}:{line}: " in err and message in err and "Traceback" not in err


@pytest.mark.parametrize(("make", "message"), [
    (lambda path: path.mkdir(), "is a folder, not a regular file"),
    (lambda path: None, "does not exist"),
    (lambda path: os.mkfifo(path), "is a FIFO (named pipe), not a regular file"),  # never opened: it would hang
    (lambda path: path.symlink_to(path.parent / "nowhere"), "dangling symlink"),
])
def test_a_labels_path_that_is_no_file_is_a_located_error(tmp_path, capsys, make, message):
    from generator.cli import main

    labels = tmp_path / "labels.jsonl"
    make(labels)
    assert main(["--project", str(tmp_path), "eval", "--labels", str(labels)]) == 2
    err = capsys.readouterr().err
    assert err == f"papersite: {labels}:1: {message}; papersite reads only regular files\n" if "regular" in message \
        else f"{labels}:1: " in err and message in err and "Traceback" not in err


def test_a_labels_file_past_the_size_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from generator.enrich import evaluate
    from generator.config import bundled_taxonomy
    from generator.enrich.taxonomy import load_taxonomy
    from generator.problems import PapersiteError

    monkeypatch.setattr(evaluate, "MAX_LISTING_BYTES", 100)
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"title": "' + "a" * 200 + '", "abstract": "b", "topic": "Theory"}\n', encoding="utf-8")
    with pytest.raises(PapersiteError) as refused:
        evaluate.read_labels(labels, load_taxonomy(bundled_taxonomy()))
    assert str(refused.value).startswith(f"{labels}:1: the labels file is larger than ")


def test_a_labels_file_with_a_byte_order_mark_and_crlf_reads_as_without(tmp_path):
    from generator.enrich.evaluate import read_labels
    from generator.config import bundled_taxonomy
    from generator.enrich.taxonomy import load_taxonomy

    labels = tmp_path / "labels.jsonl"
    labels.write_bytes('\ufeff{"title": "a", "abstract": "b", "topic": "Theory · Learning Theory"}\r\n'
                       '{"title": "c", "abstract": "d", "topic": "Theory"}\r\n'.encode())
    first, second = read_labels(labels, load_taxonomy(bundled_taxonomy()))
    assert (first.title, first.area, first.subarea) == ("a", "Theory", "Learning Theory")
    assert (second.title, second.abstract, second.area, second.subarea) == ("c", "d", "Theory", None)


def test_a_line_separator_inside_a_json_string_does_not_split_the_row(tmp_path, capsys):
    """JSON allows U+2028 raw in a string; str.splitlines would cut the row there and the next line's number would be off."""
    from generator.cli import main
    from generator.enrich.evaluate import read_labels
    from generator.config import bundled_taxonomy
    from generator.enrich.taxonomy import load_taxonomy

    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"title": "a\u2028b\x85c", "abstract": "", "topic": "Theory"}\n{"topic": "Nowhere"}\n', encoding="utf-8")
    assert main(["--project", str(tmp_path), "eval", "--labels", str(labels)]) == 2
    assert f"{labels}:2: " in capsys.readouterr().err
    labels.write_text('{"title": "a\u2028b\x85c", "abstract": "", "topic": "Theory"}\n', encoding="utf-8")
    (paper,) = read_labels(labels, load_taxonomy(bundled_taxonomy()))
    assert paper.title == "a\u2028b\x85c"


def test_a_bad_labels_file_stops_eval_before_the_pages_are_read(tmp_path, monkeypatch, capsys):
    from generator.cli import main
    from generator.enrich import evaluate

    def never(*args):
        raise AssertionError("the pages were read before the labels were checked")

    monkeypatch.setattr(evaluate, "papers_from_pages", never)
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"topic": "Theory"}\n{"topic": 1}\n', encoding="utf-8")
    assert main(["--project", str(tmp_path), "eval", "--labels", str(labels)]) == 2
    assert f"{labels}:2: expected a JSON object" in capsys.readouterr().err
