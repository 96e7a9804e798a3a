"""generator/enrich/stage.py: topics and keywords proposed for merged records; given topics and keywords stay."""

import random

from generator.config import bundled_taxonomy
from generator.enrich.stage import enrich_records
from generator.pages.record import PaperRecord, Topic

TEXTS = [
    ("Diffusion models for images", "Diffusion models and score matching generate images; we study sampling in diffusion models."),
    ("Faster diffusion sampling", "We accelerate sampling of diffusion models with a learned solver and score matching."),
    ("Graph neural networks at scale", "Graph neural networks with message passing for node classification on large graphs."),
    ("Oversmoothing in graph neural networks", "Message passing graph neural networks suffer oversmoothing in node classification."),
    ("Offline reinforcement learning", "Offline reinforcement learning learns a policy from a fixed dataset with a behavior policy."),
    ("Conservative offline reinforcement learning", "We study offline reinforcement learning and policy constraints for value estimation."),
]


def records():
    return [PaperRecord(id=f"id{i}", slug=f"p{i}", title=t, abstract=a) for i, (t, a) in enumerate(TEXTS)]


def test_fills_topic_and_keywords_without_touching_given_topics():
    given = records()
    given[0] = given[0].replace(topic=Topic("Made Up Area", "Nothing", source="listing"))
    given[1] = given[1].replace(topic=Topic("Theory", None, source="maintainer"), keywords=["hand picked"])
    out = enrich_records(given, bundled_taxonomy())
    assert [r.id for r in out] == [r.id for r in given]
    assert out[0].topic == Topic("Made Up Area", "Nothing", source="listing")
    assert out[1].topic == Topic("Theory", None, source="maintainer")
    assert out[1].keywords == ["hand picked"]
    for record in out[2:]:
        assert record.topic.source == "inferred"
        assert 3 <= len(record.keywords) <= 8


def test_same_output_whatever_the_order_and_inputs_untouched():
    first = {r.id: r for r in enrich_records(records(), bundled_taxonomy())}
    shuffled = records()
    random.Random(3).shuffle(shuffled)
    snapshot = [r.replace() for r in shuffled]
    second = {r.id: r for r in enrich_records(shuffled, bundled_taxonomy())}
    assert first == second
    assert shuffled == snapshot


def test_topics_inferred_in_a_worker_are_the_same(monkeypatch):
    """With ``parallel`` (the command line), topics are inferred in a forked worker while keywords
    are chosen: the records are the same as without it, and a failing worker fails the stage."""
    import pytest

    from generator.enrich import stage
    from generator.problems import PapersiteError

    alone = enrich_records(records(), bundled_taxonomy())
    monkeypatch.setattr(stage, "TOPICS_IN_WORKER_FROM", 1)
    assert stage.can_fork()
    assert enrich_records(records(), bundled_taxonomy(), parallel=True) == alone

    def broken(*args):
        raise RuntimeError("the topic model broke")

    monkeypatch.setattr(stage, "infer_topics", broken)
    with pytest.raises(PapersiteError, match="topic inference failed in its worker"):
        enrich_records(records(), bundled_taxonomy(), parallel=True)


def test_a_given_topic_outside_the_taxonomy_is_kept_with_a_warning_naming_the_paper(caplog):
    given = records()
    given[2] = given[2].replace(topic=Topic("Alchemy", None, source="listing"))
    with caplog.at_level("WARNING", logger="generator.enrich.stage"):
        out = enrich_records(given, bundled_taxonomy())
    assert out[2].topic == Topic("Alchemy", None, source="listing")
    (message,) = [r.getMessage() for r in caplog.records]
    assert message.startswith("p2: topic area 'Alchemy' is not in the taxonomy") and message.endswith("(kept: a listing topic wins)")


def test_a_topic_is_inferred_only_where_there_is_none_and_no_records_give_none():
    given = records()
    given[3] = given[3].replace(topic=Topic("Theory", None, source="inferred", confidence=0.1))
    out = enrich_records(given, bundled_taxonomy())
    assert out[3].topic == given[3].topic  # an inferred topic is not re-inferred here: only a missing one is
    assert enrich_records([], bundled_taxonomy()) == []
