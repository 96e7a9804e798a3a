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
