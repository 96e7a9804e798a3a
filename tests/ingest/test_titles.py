"""generator/ingest/titles.py: derived titles, slugs and ids."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from generator.pages.record import PaperRecord, SourceRef
from generator.ingest.titles import MAX_TITLE_CHARS, assign_identity, derive_title
from generator.layout import paper_slug as make_slug, paper_slugs


def unique_slug(base: str, taken: set[str]) -> str:
    return paper_slugs(taken).take(base)

CALNF = (
    "Increased deployment of autonomous systems has seen a corresponding increase in failures. "
    "We address this challenge with CalNF, or calibrated normalizing flows, a self-regularized framework for "
    "posterior learning from limited data. CalNF achieves state-of-the-art performance."
)
REFINER = (
    "Masked image models learn strong features. We introduce MIM-Refiner, a contrastive learning boost for "
    "pre-trained MIM models. MIM-Refiner improves linear probing."
)
PLAIN = (
    "There are various measures of predictive uncertainty in the literature, but their relationships to each "
    "other remain unclear and nobody has written them down in one place for practitioners to compare."
)


def test_named_method_leads_the_title():
    assert derive_title(CALNF) == "CalNF: Calibrated normalizing flows"
    assert derive_title(REFINER).startswith("MIM-Refiner: ")


def test_fallback_title_is_readable_and_not_cut_mid_word():
    title = derive_title(PLAIN)
    assert title.startswith("There are various measures of predictive uncertainty")
    assert len(title) <= MAX_TITLE_CHARS
    assert PLAIN.startswith(title) or title in PLAIN
    assert not title.endswith((" in", " the", " but", ","))


def test_long_sentence_is_cut_at_a_word_boundary():
    words = " ".join(f"word{n}" for n in range(60))
    title = derive_title(words + ".")
    assert len(title) <= MAX_TITLE_CHARS and ("w" + title[1:]) == words[: len(title)] and words[len(title)] == " "


def test_slugs_are_short_unique_and_word_bounded():
    slug = make_slug("A very long title " * 10)
    assert len(slug) <= 80 and not slug.endswith("-")
    assert unique_slug("paper", {"paper", "paper-2"}) == "paper-3"
    assert make_slug("<script>alert(1)</script>") == "script-alert-1-script"
    assert make_slug("!!!") == "paper"


def test_identity_is_stable_and_unique():
    def record(title):
        return PaperRecord(id="", slug="", title=title, sources=[SourceRef("f", 1, "numbered")])

    first = [record("Same"), record("Same"), record("Other")]
    second = [record("Same"), record("Same"), record("Other")]
    assign_identity(first, set(), set())
    assign_identity(second, set(), set())
    assert [(r.id, r.slug) for r in first] == [(r.id, r.slug) for r in second]
    assert len({r.id for r in first}) == 3
    assert [r.slug for r in first] == ["same", "same-2", "other"]


RESERVED_TITLES = ["Index", "Search", "Assets", "404", "sitemap", "CON", "prn", "Aux", "NUL", "COM1", "com9", "LPT1", "Lpt9"]


def test_reserved_names_never_become_a_paper_slug():
    from generator.layout import RESERVED_SLUGS

    records = [PaperRecord(id="", slug="", title=title, sources=[SourceRef("x.txt", n, "numbered")]) for n, title in enumerate(RESERVED_TITLES)]
    assign_identity(records, taken_ids=set(), taken_slugs={"index-paper"})
    slugs = [r.slug for r in records]
    assert not set(slugs) & RESERVED_SLUGS and len(set(slugs)) == len(slugs)
    assert slugs[0] == "index-paper-2" and slugs[5] == "con-paper"
    assert unique_slug("nul", set()) == "nul-paper" and make_slug("  ") == "paper"


# --- derived titles a person would write (issue 16) -------------------------------------

ARTSAVANT = (
    "In this work, we build on prior legal scholarship to develop an automatic and interpretable framework to "
    "\\emph{quantitatively} assess style infringement. Based on this argument, we introduce ArtSavant, a practical "
    "(i.e., efficient and easy to understand) tool to (i) determine the unique style of an artist by comparing it "
    "to a reference corpus of works from hundreds of artists, and (ii) recognize if the identified style reappears."
)
MUFU = (
    "For many LLMs, translating in and out of low-resource languages remains a challenging task. To maximize data "
    "efficiency in this low-resource setting, we introduce Mufu, which includes a selection of automatically "
    "generated multilingual candidates and an instruction to correct inaccurate translations in the prompt."
)
CSL_NEWS = (
    "Sign language pre-training has gained increasing attention. First, we introduce CSL-News, a large-scale "
    "Chinese Sign Language (CSL) dataset containing 1,985 hours of video paired with textual annotations, which "
    "enables effective large-scale pre-training."
)
SELF_INF_N = (
    "Specifically, we analyze and identify samples within benign datasets that contribute most to safety "
    "degradation, then fine-tune LLMs exclusively on these samples. We approach this problem from an outlier "
    "detection perspective and propose Self-Inf-N, to detect and extract outliers for fine-tuning."
)
LAION_C = (
    "Out-of-distribution (OOD) robustness is a desired property of computer vision models. To address this, we "
    "introduce LAION-C as a benchmark alternative for ImageNet-C. LAION-C consists of six novel distortion types."
)
UPCYCLING = (
    "Text-to-image synthesis has witnessed remarkable advancements in recent years. We propose *Multi-Task "
    "Upcycling* (MTU), a simple yet effective recipe that extends the capabilities of a pre-trained text-to-image "
    "diffusion model to support a variety of image-to-image generation tasks."
)
SCOPE_GEN = (
    "Generative models lack rigorous statistical guarantees. In this work, we propose Sequential Conformal "
    "Prediction for Generative Models (SCOPE-Gen), a sequential conformal prediction method producing prediction sets."
)


def test_issue_examples_read_as_a_person_would_title_them():
    assert derive_title(ARTSAVANT) == "ArtSavant: A practical tool to determine the unique style of an artist"
    assert derive_title(MUFU).startswith("Mufu: ") and len(derive_title(MUFU).split()) >= 5
    assert derive_title(CSL_NEWS) == "CSL-News: A large-scale Chinese Sign Language (CSL) dataset containing 1,985 hours"
    assert derive_title(SELF_INF_N) == "Self-Inf-N: Detecting and extracting outliers for fine-tuning"
    assert derive_title(LAION_C) == "LAION-C: A benchmark alternative for ImageNet-C"
    assert derive_title(UPCYCLING).startswith("Multi-Task Upcycling: A simple yet effective recipe")
    assert derive_title(SCOPE_GEN) == "SCOPE-Gen: Sequential Conformal Prediction for Generative Models"


def test_a_title_has_no_markup_left():
    assert derive_title("We propose **FastX**, a `fast` solver for $\\mathcal{O}(n)$ \\textbf{sparse} systems.") == (
        "FastX: A fast solver for O sparse systems"
    )
    assert derive_title("...") == "Untitled paper"


# the 11,672 ICLR 2025 submissions, beside the repository (see ../shared/datasets/README.md)
REAL_ABSTRACTS = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "iclr2025_submissions.jsonl.gz"
# the whole-word check reads the abstract as text: TeX commands and Markdown marks are not words
_NOT_WORDS = re.compile(r"\\[A-Za-z]+|[$_{}^*`\\]")


def test_derived_titles_of_real_abstracts_are_clean_whole_and_name_once():
    if not REAL_ABSTRACTS.exists():
        pytest.skip(f"{REAL_ABSTRACTS} (the 11,672 ICLR 2025 submissions) is not on this machine")
    with gzip.open(REAL_ABSTRACTS, "rt", encoding="utf-8") as lines:
        abstracts = [json.loads(line).get("abstract") or "" for line in lines]
    assert len(abstracts) > 10_000
    problems = []
    for abstract in abstracts[::5]:  # every fifth: 2,335 abstracts, all kinds of TeX and Markdown
        title = derive_title(abstract)
        words = re.findall(r"[\w'’-]+", title)
        plain = _NOT_WORDS.sub("", abstract)
        if not words or len(title) > MAX_TITLE_CHARS:
            problems.append(f"empty or long: {title!r}")
        elif re.search(r"[\\$^{}*`]|\]\(|https?:|__", title):
            problems.append(f"markup: {title!r}")
        elif ":" in title and title.split(":")[0].strip().lower() in title.split(":", 1)[1].lower():
            problems.append(f"name repeated: {title!r}")
        elif words[-1].lower() in {"a", "an", "the", "of", "for", "and", "or", "to", "with", "in", "on", "by"}:
            problems.append(f"dangling word: {title!r}")
        elif title != "Untitled paper" and not re.search(rf"(?<![\w-]){re.escape(words[-1])}(?![\w-])", plain):
            problems.append(f"ends inside a word: {title!r}")
    # a handful of odd abstracts may defeat the rules; a rule that breaks shows as dozens
    assert len(problems) <= 10, f"{len(problems)} of {len(abstracts[::5])} derived titles read badly:\n" + "\n".join(problems[:30])
