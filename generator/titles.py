"""Titles stage: a title for every paper, and the identity (id, slug) of new papers.

In:  ``MergedPaper`` objects from the merge stage.
Out: ``PaperRecord`` drafts with a title (``title_derived`` when no listing had
     one); ``assign_identity`` then gives papers that have no page yet a stable
     ``id`` and a unique ``slug``.

A derived title leads with the method the abstract names ("we propose CalNF,
..."), because that is what a reader would search for; otherwise it is the
paper's own statement of what it does, cut at a word boundary. Slugs and ids
are made once, at first import, and stored by the importer: this module is
never asked again for a paper that already has a page.
"""

from __future__ import annotations

import hashlib
import re
from typing import Iterable

from slugify import slugify

from generator.merge import MergedPaper, normalize_text, title_key
from generator.record import PaperRecord, Topic
from generator.site.urls import unreserved

MAX_TITLE_CHARS = 90
SLUG_MAX_LENGTH = 80

_STOP_TAIL = {
    "a", "an", "the", "of", "for", "and", "or", "to", "with", "in", "on", "by", "from", "via",
    "that", "which", "as", "at", "into", "its", "their", "our", "is", "are", "be",
    "but", "since", "while", "when", "where", "using", "such", "both", "can", "not",
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\(])|(?<=[a-z]{3}[.!?])(?=[A-Z][a-z])")
# A method name: CalNF, MIM-Refiner, OOD-TV-IRM, PermuCATE, DisBack, EvoSeed.
_NAME = r"[A-Z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*"
_NAME_RE = re.compile(rf"(?<![\w-])({_NAME})(?![\w-])")
_VERB = re.compile(
    r"\b(?:propos|introduc|present|develop|design|call|nam|dub|term|coin|address|build|establish)\w*\b",
    re.IGNORECASE,
)
_LATEX = re.compile(r"\\text(?:bf|it|tt|sc|rm)\{([^{}]*)\}|\\emph\{([^{}]*)\}")


def _strip_latex(text: str) -> str:
    text = _LATEX.sub(lambda m: m.group(1) or m.group(2) or "", text)
    return text.replace("$", "")


def _looks_like_method(name: str) -> bool:
    uppers = sum(c.isupper() for c in name)
    if uppers < 2 and not any(c.isdigit() for c in name[1:]) and "-" not in name:
        return False
    if re.fullmatch(r"[A-Z]{1,5}s?", name):  # LLM, LLMs, RCT, GNNs: field jargon, not a method
        return False
    if re.fullmatch(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+", name):  # "Multi-Task", "Physics-Informed": adjectives
        return False
    return True


def _sentences(abstract: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(_strip_latex(abstract)) if s.strip()]


def _tidy(phrase: str, limit: int = MAX_TITLE_CHARS) -> str:
    """Cut a phrase at a word boundary within ``limit`` and drop a dangling tail."""
    phrase = " ".join(phrase.split()).strip(" ,;:.-")
    # A clause boundary is a better place to stop than wherever the limit falls.
    clause = re.search(r",\s+(?:but|while|whereas|which|where|and|demonstrating|enabling|allowing)\b|;", phrase)
    if clause and clause.start() >= 20:
        phrase = phrase[: clause.start()]
    if len(phrase) > limit:
        cut = phrase[: limit + 1]
        phrase = cut[: cut.rfind(" ")] if " " in cut else cut[:limit]
    words = phrase.split()
    while len(words) > 1 and (words[-1].lower().strip(",;:") in _STOP_TAIL or words[-1].endswith((",", ";", ":"))):
        words.pop()
    phrase = " ".join(words).strip(" ,;:.-")
    # Unbalanced brackets read as a cut; drop the open part.
    if phrase.count("(") > phrase.count(")"):
        phrase = phrase[: phrase.rfind("(")].rstrip(" ,;:")
    return phrase


def _capitalize(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:] if phrase else phrase


def _method_name(sentences: list[str]) -> tuple[str, str] | None:
    """(name, sentence) for the first method the authors say they propose."""
    for sentence in sentences:
        verb = _VERB.search(sentence)
        if verb is None or not re.search(r"\b(we|our|this (paper|work))\b", sentence, re.IGNORECASE):
            continue
        after = sentence[verb.end() :]
        for match in _NAME_RE.finditer(" ".join(after.split()[:14])):
            if _looks_like_method(match.group(1)):
                return match.group(1), sentence
    return None


def _describe(name: str, sentence: str) -> str | None:
    """What the sentence says the named method is: its expansion or appositive."""
    escaped = re.escape(name)
    patterns = (
        rf"{escaped}\s*,\s*(?:or|i\.e\.,?)\s+([^,;()]{{4,80}})",  # "CalNF, or calibrated normalizing flows,"
        rf"{escaped}\s*\(([^()]{{4,80}})\)",  # "CalNF (calibrated normalizing flows)"
        rf"((?:[A-Z][\w-]*\s+){{1,6}})\(\s*{escaped}\s*\)",  # "Distribution Backtracking Distillation (DisBack)"
        rf"{escaped}\s*,\s*(?:a|an|the)\s+([^;]{{6,120}}?)(?:,|\.|;|$)",  # "PermuCATE, an algorithm based on ..."
        rf"(?:a|an|the)\s+((?:[\w-]+\s+){{1,8}}?)(?:called|named|dubbed|termed)\s+{escaped}",
    )
    for pattern in patterns:
        match = re.search(pattern, sentence)
        if match:
            return match.group(1).strip()
    return None


_LEAD_IN = re.compile(
    r"^(?:in this (?:paper|work|study)|here|to (?:address|tackle|solve) (?:this|these) [\w\s-]+?)\s*,\s*",
    re.IGNORECASE,
)
_WE_VERB = re.compile(
    r"\bwe\s+(?:first\s+|then\s+|further\s+)?(?:propose|introduce|present|develop|study|investigate|design|"
    r"analy[sz]e|show|explore|consider|examine|provide|describe)\s+(.*)",
    re.IGNORECASE,
)


def derive_title(abstract: str | None) -> str:
    """A readable title for a paper whose listings gave none."""
    if not abstract:
        return "Untitled paper"
    sentences = _sentences(abstract)
    method = _method_name(sentences)
    if method is not None:
        name, sentence = method
        description = _describe(name, sentence)
        if not description or normalize_text(description) == normalize_text(name):
            description = _statement(sentences)
        return f"{name}: {_capitalize(_tidy(description, MAX_TITLE_CHARS - len(name) - 2))}"
    return _capitalize(_tidy(_statement(sentences)))


def _statement(sentences: list[str]) -> str:
    """The paper's own sentence about what it does, else its opening sentence."""
    for sentence in sentences:
        found = _WE_VERB.search(sentence)
        if found:
            phrase = re.sub(r"^(?:that|how|whether)\s+", "", found.group(1), flags=re.IGNORECASE)
            if re.match(r"(?:this|these|it|the effectiveness|our)\b", phrase, re.IGNORECASE):
                continue  # refers back to something else: not a description
            return re.split(r",\s*(?:which|that|where|and)\b|;|\.\s", phrase)[0]
    return _LEAD_IN.sub("", sentences[0]) if sentences else ""


def draft_record(paper: MergedPaper) -> PaperRecord:
    """The paper as a record without identity (id and slug are filled later)."""
    derived = not paper.title
    topic = Topic(area=paper.topic[0], subarea=paper.topic[1], source=paper.topic_source) if paper.topic else None
    return PaperRecord(
        id="",
        slug="",
        title=paper.title or derive_title(paper.abstract),
        title_derived=derived,
        authors=list(paper.authors),
        abstract=paper.abstract,
        topic=topic,
        keywords=list(paper.keywords),
        decision=paper.decision,
        links=dict(paper.links),
        sources=paper.sources,
        filled_from=list(paper.filled_from),
    )


def make_slug(title: str) -> str:
    slug = slugify(title, max_length=SLUG_MAX_LENGTH, word_boundary=True, save_order=True)
    # "Index" would take over papers/index.html, "CON" give a file Windows cannot check out
    return unreserved(slug or "paper", "-paper")


def unique_slug(base: str, taken: set[str]) -> str:
    base = unreserved(base, "-paper")
    if base not in taken:
        return base
    counter = 2
    while True:
        suffix = f"-{counter}"
        candidate = base[: SLUG_MAX_LENGTH - len(suffix)].rstrip("-") + suffix
        if candidate not in taken:
            return candidate
        counter += 1


def identity_key(record: PaperRecord) -> str:
    """What a new paper's id is hashed from: its listed title, else its abstract."""
    if not record.title_derived and record.title:
        return "title:" + title_key(record.title)
    if record.abstract:
        return "abstract:" + normalize_text(record.abstract)
    return "source:" + (record.sources[0].label() if record.sources else record.title)


def make_id(key: str, taken: set[str]) -> str:
    salt = 0
    while True:
        data = key if salt == 0 else f"{key}#{salt}"
        candidate = hashlib.blake2b(data.encode("utf-8"), digest_size=6).hexdigest()
        if candidate not in taken:
            return candidate
        salt += 1


def assign_identity(records: Iterable[PaperRecord], taken_ids: set[str], taken_slugs: set[str]) -> None:
    """Give each record without an id a new id and slug, in the order given.

    Callers pass records in canonical order (by first source), so which of two
    clashing papers gets the ``-2`` slug does not depend on the order listings
    were read. ``taken_*`` are updated in place.
    """
    for record in records:
        if record.id:
            continue
        record.id = make_id(identity_key(record), taken_ids)
        taken_ids.add(record.id)
        record.slug = unique_slug(make_slug(record.title), taken_slugs)
        taken_slugs.add(record.slug)
