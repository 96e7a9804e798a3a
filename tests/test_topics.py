from generator.config import bundled_taxonomy
from generator.taxonomy import load_taxonomy, parse_taxonomy
from generator.topics import infer_topic

GNN = ("Message passing graph neural networks", "We study graph neural networks, node classification and message passing on graphs with oversmoothing.")


def test_inferred_topic_is_marked_and_in_the_taxonomy():
    taxonomy = load_taxonomy(bundled_taxonomy())
    topic = infer_topic(*GNN, taxonomy)
    assert topic.source == "inferred" and 0.0 <= topic.confidence <= 1.0
    assert taxonomy.contains(topic.area, topic.subarea)
    assert (topic.area, topic.subarea) == ("Deep Learning", "Graph Neural Networks")


def test_low_confidence_gives_the_area_only():
    taxonomy = load_taxonomy(bundled_taxonomy())
    topic = infer_topic(*GNN, taxonomy, subarea_threshold=1.01)
    assert topic.subarea is None and topic.area == "Deep Learning"


def test_site_taxonomy_restricts_the_answer():
    taxonomy = parse_taxonomy('"Optimization":\n  - "Convex"\n')
    topic = infer_topic(*GNN, taxonomy)
    assert topic.area == "Optimization"
