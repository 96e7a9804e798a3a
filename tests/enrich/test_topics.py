from generator.config import bundled_taxonomy
from generator.enrich.taxonomy import load_taxonomy, parse_taxonomy
from generator.enrich.topics import infer_topic

GNN = ("Message passing graph neural networks", "We study graph neural networks, node classification and message passing on graphs with oversmoothing.")


def test_inferred_topic_is_marked_and_in_the_taxonomy():
    taxonomy = load_taxonomy(bundled_taxonomy())
    topic = infer_topic(*GNN, taxonomy)
    assert topic.source == "inferred" and 0.0 <= topic.confidence <= 1.0
    assert taxonomy.contains(topic.area, topic.subarea)
    assert topic.confidence <= topic.area_confidence <= 1.0  # P(area and sub-area) <= P(area)
    assert (topic.area, topic.subarea) == ("Deep Learning", "Graph Neural Networks")


def test_low_confidence_gives_the_area_only():
    taxonomy = load_taxonomy(bundled_taxonomy())
    topic = infer_topic(*GNN, taxonomy, subarea_threshold=1.01)
    assert topic.subarea is None and topic.area == "Deep Learning"


def test_site_taxonomy_restricts_the_answer():
    taxonomy = parse_taxonomy('"Optimization":\n  - "Convex"\n')
    topic = infer_topic(*GNN, taxonomy)
    assert topic.area == "Optimization"


def test_batch_inference_matches_single_and_is_deterministic():
    from generator.enrich.topics import infer_topics

    taxonomy = load_taxonomy(bundled_taxonomy())
    papers = [GNN, ("Convergence of SGD", "We prove convergence rates of stochastic gradient descent for nonconvex objectives."), ("", "")]
    batch = infer_topics(papers, taxonomy)
    assert batch == [infer_topic(t, a, taxonomy) for t, a in papers]
    assert batch == infer_topics(list(papers), taxonomy)


def test_model_round_trips_through_npz(tmp_path):
    import numpy as np

    from generator.enrich.topics import TopicModel, read_model, save_model

    model = TopicModel.from_dense(
        labels=(("Deep Learning", "Graph Neural Networks"), ("Optimization", "Convex")),
        terms=("graph", "convex"),
        idf=[1.5, 2.0],
        coef=np.array([[2.0, 0.0], [0.0, 3.0]]),
        bias=[0.0, 0.1],
        temperature=1.2,
        subarea_threshold=0.3,
    )
    save_model(model, tmp_path / "m.npz")
    loaded = read_model(tmp_path / "m.npz")
    assert loaded.labels == model.labels and loaded.vocabulary == model.vocabulary
    taxonomy = parse_taxonomy('"Deep Learning":\n  - "Graph Neural Networks"\n"Optimization":\n  - "Convex"\n')
    assert infer_topic("graph graph", "", taxonomy, loaded).subarea == "Graph Neural Networks"
    assert infer_topic("convex", "", taxonomy, loaded).area == "Optimization"


def test_area_head_round_trips_and_chooses_the_area(tmp_path):
    import numpy as np

    from generator.enrich.topics import TopicModel, first_sentences, read_model, save_model

    model = TopicModel.from_dense(
        labels=(("Deep Learning", "Graph Neural Networks"), ("Optimization", "Convex")),
        terms=("graph", "convex"),
        idf=[1.5, 2.0],
        coef=np.array([[2.0, 0.0], [0.0, 3.0]]),
        bias=[0.0, 0.0],
        temperature=1.0,
        subarea_threshold=0.3,
        area_labels=("Deep Learning", "Optimization"),
        area_coef=np.array([[0.0, 5.0], [0.0, 5.0]]),  # the area head always prefers Optimization
        area_bias=[0.0, 0.0],
        area_temperature=1.0,
        abstract_sentences=1,
    )
    save_model(model, tmp_path / "m.npz")
    loaded = read_model(tmp_path / "m.npz")
    assert loaded.area_labels == model.area_labels and loaded.abstract_sentences == 1
    taxonomy = parse_taxonomy('"Deep Learning":\n  - "Graph Neural Networks"\n"Optimization":\n  - "Convex"\n')
    topic = infer_topic("graph graph", "", taxonomy, loaded)
    assert topic.area == "Optimization" and topic.source == "inferred"
    # Only the first sentence of the abstract is read: the second cannot change the answer.
    assert infer_topic("", "About graphs. Convex convex convex.", taxonomy, loaded) == infer_topic("", "About graphs.", taxonomy, loaded)
    assert first_sentences("One. Two. Three.", 2) == "One. Two."


def test_bundled_model_confidence_is_a_probability_and_threshold_applies():
    from generator.enrich.topics import infer_topics, load_topic_model

    taxonomy = load_taxonomy(bundled_taxonomy())
    model = load_topic_model()
    full = infer_topics([GNN], taxonomy, model, subarea_threshold=0.0)[0]
    area_only = infer_topics([GNN], taxonomy, model, subarea_threshold=1.01)[0]
    assert full.area == area_only.area and area_only.subarea is None
    assert 0.0 < full.confidence <= area_only.confidence <= 1.0


def test_calibration_curves_round_trip_and_set_the_shown_confidence(tmp_path):
    import numpy as np

    from generator.enrich.topics import TopicModel, read_model, save_model

    taxonomy = parse_taxonomy('"Deep Learning":\n  - "Graph Neural Networks"\n"Optimization":\n  - "Convex"\n')
    dense = dict(
        labels=(("Deep Learning", "Graph Neural Networks"), ("Optimization", "Convex")),
        terms=("graph", "convex"),
        idf=[1.5, 2.0],
        coef=np.array([[4.0, 0.0], [0.0, 3.0]]),
        bias=[0.0, 0.1],
        temperature=1.0,
        subarea_threshold=0.0,
    )
    raw = infer_topic("graph graph", "", taxonomy, TopicModel.from_dense(**dense))
    # A model that is right 60% of the time whatever it says about the area, and whose
    # sub-area curve alone would claim more than that.
    curves = dict(area_calibration=((0.0, 1.0), (0.6, 0.6)), subarea_calibration=((0.0, 1.0), (0.9, 0.9)))
    save_model(TopicModel.from_dense(**dense, **curves), tmp_path / "m.npz")
    loaded = read_model(tmp_path / "m.npz")
    assert loaded.area_calibration == curves["area_calibration"]
    assert loaded.subarea_calibration == curves["subarea_calibration"]
    topic = infer_topic("graph graph", "", taxonomy, loaded)
    assert (topic.area, topic.subarea) == (raw.area, raw.subarea)  # calibration never changes the answer
    assert topic.area_confidence == 0.6
    assert topic.confidence == 0.6  # area and sub-area right is never likelier than area right


def test_bundled_model_is_calibrated():
    from generator.enrich.topics import load_topic_model

    model = load_topic_model()
    for xs, ys in (model.area_calibration, model.subarea_calibration):
        assert xs and list(xs) == sorted(xs) and list(ys) == sorted(ys) and 0.0 <= ys[0] <= ys[-1] <= 1.0
