import json
from types import SimpleNamespace

from generator.config import load_config
from generator.evaluate import run_eval


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
