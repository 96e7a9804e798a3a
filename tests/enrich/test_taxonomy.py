import pytest

from generator.config import bundled_taxonomy
from generator.pages.record import Topic
from generator.enrich.taxonomy import load_taxonomy, parse_taxonomy
from generator.pages.record import parse_topic_label
from generator.problems import PapersiteError


def test_bundled_taxonomy_has_8_areas_and_76_subareas():
    taxonomy = load_taxonomy(bundled_taxonomy())
    assert len(taxonomy.area_names) == 8
    assert len(taxonomy.labels()) == 76


def test_topic_outside_the_scheme_is_reported_but_area_alone_is_valid():
    taxonomy = parse_taxonomy('"Theory":\n  - "Learning Theory"\n')
    assert taxonomy.topic_problem(Topic("Theory")) is None
    assert taxonomy.topic_problem(Topic("Theory", "Learning Theory")) is None
    assert "not in area" in taxonomy.topic_problem(Topic("Theory", "Quantum"))
    assert "not in the taxonomy" in taxonomy.topic_problem(Topic("Astrology"))


def test_invalid_taxonomy_names_file_and_line(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text('"A":\n  - "x"\n  - "x"\n', encoding="utf-8")
    with pytest.raises(PapersiteError, match=r"t.yaml:1: area 'A' lists sub-area 'x' twice"):
        load_taxonomy(path)
    path.write_text("- just a list\n", encoding="utf-8")
    with pytest.raises(PapersiteError, match="t.yaml:1:"):
        load_taxonomy(path)


def test_labels_parse_in_both_spellings():
    assert parse_topic_label("Deep Learning · Theory") == ("Deep Learning", "Theory")
    assert parse_topic_label("Deep Learning->Theory") == ("Deep Learning", "Theory")
    assert parse_topic_label("Optimization") == ("Optimization", None)


@pytest.mark.parametrize(
    "text, message",
    [
        ('A: &a ["x", "y"]\nB: *a\n', "t.yaml:1: taxonomy: YAML anchors"),
        ("A: [x]\nB: [y]\nA: [z]\n", "t.yaml:3: taxonomy: key 'A' appears twice"),
    ],
)
def test_taxonomy_yaml_tricks_are_errors_in_import_and_check(tmp_path, text, message):
    from generator.pages.check import load_taxonomy as check_taxonomy

    with pytest.raises(PapersiteError, match=message):
        parse_taxonomy(text, "t.yaml")
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    _, problems = check_taxonomy(path)
    (problem,) = problems
    assert problem.line == int(message.split(":")[1]) and message.split(": ", 1)[1] in problem.message
