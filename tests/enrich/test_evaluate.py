import json

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
    (b'\n{"title": "a"}\n', 2, "expected a JSON object with title, abstract and topic"),
    (b'[1, 2]\n', 1, "expected a JSON object"),
    (b'{"topic": "Theory", "title": 5}\n', 1, "expected a JSON object"),
    (b'{"topic": "Theory", "title": "a", "title": "b"}\n', 1, "appears twice"),
    (b'{"topic": \n', 1, "not valid JSON"),
    ('{"topic": "·"}\n'.encode(), 1, "topic area must be a name"),
    ('{"topic": "Theory · "}\n'.encode(), 1, "topic sub-area must be a name"),
])
def test_a_bad_labels_file_is_a_located_error(tmp_path, capsys, content, line, message):
    from generator.cli import main

    labels = tmp_path / "labels.jsonl"
    labels.write_bytes(content)
    assert main(["--project", str(tmp_path), "eval", "--labels", str(labels)]) == 2
    err = capsys.readouterr().err
    assert f"{labels}:{line}: " in err and message in err and "Traceback" not in err


def test_a_labels_file_with_a_byte_order_mark_reads_as_without(tmp_path):
    from generator.enrich.evaluate import read_labels

    labels = tmp_path / "labels.jsonl"
    labels.write_bytes('\ufeff{"title": "a", "abstract": "b", "topic": "Theory · Learning Theory"}\n'.encode())
    (paper,) = read_labels(labels)
    assert (paper.area, paper.subarea) == ("Theory", "Learning Theory")
