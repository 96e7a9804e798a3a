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
from typing import TYPE_CHECKING, Iterable

from generator.ingest.abstract_links import code_url
from generator.text import normalize_text, title_key
from generator.pages.record import PaperRecord
from generator import layout

if TYPE_CHECKING:  # a page's renderer reads this module's text helpers, and never loads the listings' readers
    from generator.ingest.merge import MergedPaper

MAX_TITLE_CHARS = 100

_STOP_TAIL = {
    "a", "an", "the", "of", "for", "and", "or", "to", "with", "in", "on", "by", "from", "via",
    "that", "which", "as", "at", "into", "its", "their", "our", "is", "are", "be", "than",
    "but", "since", "while", "when", "where", "using", "such", "both", "can", "not", "this", "these",
    "aims", "seeks", "allows", "enables", "helps", "tries", "able", "yet", "also", "novel", "new", "simple",
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\(])|(?<=[a-z]{3}[.!?])(?=[A-Z][a-z])")
# A method name: CalNF, MIM-Refiner, OOD-TV-IRM, PermuCATE, DisBack, EvoSeed.
_NAME = r"[A-Z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*"
_NAME_RE = re.compile(rf"(?<![\w-])({_NAME})(?![\w-])")
_VERB = re.compile(
    r"\b(?:propos|introduc|present|develop|design|call|nam|dub|term|coin|address|build|establish|extend)\w*\b",
    re.IGNORECASE,
)
_TEX_GROUP = re.compile(r"\\(?:text\w*|emph|underline|mathrm|mathbf|mathit|mathsf|mathtt|mathcal|mbox|operatorname)\s*\{([^{}]*)\}")
_TEX_SWITCH = re.compile(r"\{\\(?:em|it|bf|sc|tt|sl)\b\s*([^{}]*)\}")


_GREEK = {
    name: chr(code)
    for name, code in (
        ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5), ("varepsilon", 0x3B5),
        ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("kappa", 0x3BA), ("lambda", 0x3BB), ("mu", 0x3BC),
        ("nu", 0x3BD), ("xi", 0x3BE), ("pi", 0x3C0), ("rho", 0x3C1), ("sigma", 0x3C3), ("tau", 0x3C4), ("phi", 0x3C6),
        ("chi", 0x3C7), ("psi", 0x3C8), ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394), ("Theta", 0x398),
        ("Lambda", 0x39B), ("Pi", 0x3A0), ("Sigma", 0x3A3), ("Phi", 0x3A6), ("Psi", 0x3A8), ("Omega", 0x3A9),
    )
}


def plain_text(abstract: str, asides: bool = False) -> str:
    """The abstract as a reader sees it, without TeX, Markdown, URLs (or asides in brackets).

    A title is plain text on every page and in every list, sorted by its first
    letter: "*Multi-Task Upcycling*" with its asterisks sorted before every other paper.
    """
    text = re.sub(r"\\href\s*\{[^{}]*\}\s*\{([^{}]*)\}", r"\1", abstract)
    text = re.sub(r"\\url\s*\{[^{}]*\}", "", text)
    text = re.sub(r"\[([^\[\]]*)\]\(\s*https?://[^)]*\)", r"\1", text)  # Markdown [text](url)
    text = re.sub(r"<?https?://\S+", "", text)
    for _ in range(3):  # nested groups, innermost first
        text = _TEX_GROUP.sub(r"\1", _TEX_SWITCH.sub(r"\1", text))
    text = text.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_")
    # Greek letters are part of names ("$\\beta$-DPO"); other macros (\model, \cdot) have no words of their own
    text = re.sub(r"\\([A-Za-z]+)\s*", lambda m: _GREEK.get(m.group(1), " "), text)
    text = re.sub(r"[_^]\{?(\w+)\}?", r"\1", text.replace("$", ""))  # L_p -> Lp
    text = re.sub(r"[{}\\`^]|\*+|(?<!\w)_+|_+(?!\w)", "", text)  # Markdown emphasis and stray TeX
    # asides: "(i.e., efficient and easy to understand)", "(i)"; "MIM (Masked Image Modeling)-Refiner".
    # A name in brackets stays: "(SCOPE-Gen)", "(CSL)". A description (``asides``) keeps them all.
    for _ in range(0 if asides else 2):
        text = re.sub(r"\s*\((?!\s*[A-Z][\w-]*[A-Z][\w-]*\s*\))[^()]*\)", "", text)
    return " ".join(text.split())


def _looks_like_method(name: str) -> bool:
    uppers = sum(c.isupper() for c in name)
    if uppers < 2 and not any(c.isdigit() for c in name[1:]) and "-" not in name:
        return False
    if re.fullmatch(r"[A-Z]{1,5}s?", name):  # LLM, LLMs, RCT, GNNs: field jargon, not a method
        return False
    if re.fullmatch(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+", name):  # "Multi-Task", "Physics-Informed": adjectives
        return False
    if re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)+", name):  # "Long-term", "Prompt-based" opening a sentence
        return False
    return True


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


# Where a phrase may end: before a preposition, a relative word or a comma (not in "1,985").
_PHRASE_END = re.compile(r"(?=\s+(?:of|for|to|with|in|on|by|from|via|that|which|and|while|using|through|under|over|across|at|as)\s)")
_CLAUSE_END = re.compile(
    r",\s+(?:but|while|whereas|which|where|and|demonstrating|enabling|allowing|achieving|leading|resulting|"
    r"making|thereby|thus|reducing|improving|outperforming|showing|yielding|we)\b|;|:\s|\s*[—–]\s*|\s+-\s+|\s+(?:since|because|although|though)\s"
)


def _tidy(phrase: str, limit: int = MAX_TITLE_CHARS) -> str:
    """Whole phrases of ``phrase`` within ``limit``, without a dangling word at the end."""
    phrase = " ".join(phrase.split()).strip(" ,;:.-")
    # A clause boundary is a better place to stop than wherever the limit falls.
    clause = _CLAUSE_END.search(phrase)
    if clause and clause.start() >= 20:
        phrase = phrase[: clause.start()]
    # Any other comma (not "1,985") ends the phrase; one that opens a list ("robust, detectable,
    # and ...") leaves a dangling adjective, so the phrase before it goes too.
    comma = re.search(r",(?!\d)", phrase)
    if comma and comma.start() >= 20:
        in_list = re.match(r",\s*[\w-]+(?:,|\s+(?:and|or)\b|$)", phrase[comma.start() :])
        phrase = phrase[: comma.start()]
        if in_list:
            ends = [m.start() for m in _PHRASE_END.finditer(phrase) if m.start() >= 20]
            phrase = next((phrase[:end] for end in reversed(ends) if _ends_whole(phrase[:end])), phrase)
    if len(phrase) > limit:
        # the last phrase boundary that keeps at least half the room, else the last word
        ends = [m.start() for m in _PHRASE_END.finditer(phrase) if limit // 2 <= m.start() <= limit]
        ends = [end for end in reversed(ends) if _ends_whole(phrase[:end])]
        if ends:
            phrase = phrase[: ends[0]]
        else:
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


def _ends_whole(phrase: str) -> bool:
    """Whether a phrase cut here reads as finished: not on a function word, pronoun or hanging verb."""
    words = [w.lower().strip(",;:") for w in phrase.split()] or [""]
    last, before = words[-1], words[-2] if len(words) > 1 else ""
    if last in _STOP_TAIL or last in {"it", "them"}:
        return False
    # "by comparing", "video paired": a verb waiting for its object ("language modeling" is a noun)
    hanging = last.endswith("ing") and before in {"by", "for", "of", "in", "to", "from", "without", "while", "when"}
    return not hanging and not (last.endswith("ed") and not last.endswith("eed"))


def _capitalize(phrase: str) -> str:
    # "β-DPO" keeps its letter: a Greek capital is another symbol
    return phrase[:1].upper() + phrase[1:] if phrase[:1].isascii() else phrase


_SUBJECT = re.compile(r"\b(we|our|us|this (paper|work))\b", re.IGNORECASE)


_ACRONYM = re.compile(r"[A-Z]{2,6}s?")


def _expands(words: str, acronym: str) -> bool:
    """Whether the capitalised words spell the acronym: "Multi-Task Upcycling" -> MTU."""
    initials = "".join(part[0] for part in re.split(r"[\s-]+", words) if part[:1].isupper())
    return initials.upper() == acronym.rstrip("s").upper()


def _method_name(sentences: list[str]) -> tuple[str, str] | None:
    """(name, sentence) for the first method the authors say they propose."""
    for sentence in sentences:
        verb = _VERB.search(sentence)
        if verb is None or not _SUBJECT.search(sentence):
            continue
        named = re.search(rf"\b(?:called|named|dubbed|termed)\s+({_NAME})", sentence)
        if named and _looks_like_method(named.group(1)):
            return named.group(1), sentence
        after = sentence[verb.end() :]
        for match in _NAME_RE.finditer(" ".join(after.split()[:14])):
            if _looks_like_method(match.group(1)):
                return match.group(1), sentence
        # "Multi-Task Upcycling (MTU), a recipe ...": an acronym the authors spell out is their method
        spelled = re.search(rf"((?:[A-Z][\w-]*\s+){{1,6}})\(({_ACRONYM.pattern})\)", after)
        if spelled and _expands(spelled.group(1), spelled.group(2)):
            return spelled.group(2), sentence
    return None


def _gerund(verb: str) -> str:
    """detect -> detecting, employs -> employing, make -> making (for "NAME, which employs ...")."""
    base = verb.lower()
    if base.endswith("ies"):
        base = base[:-3] + "y"
    elif base.endswith(("sses", "shes", "ches", "xes")):
        base = base[:-2]
    elif base.endswith("s") and not base.endswith("ss"):
        base = base[:-1]
    if base.endswith("ie"):
        return base[:-2] + "ying"
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
        return base[:-1] + "ing"
    return base + "ing"


def _plain_article(phrase: str) -> str:
    """'a novel approach' -> 'an approach': every proposed method is new."""
    match = re.match(r"(?:a|an)\s+(?:novel|new)\s+(?=(\w))", phrase, re.IGNORECASE)
    if not match:
        return phrase
    article = "an " if match.group(1).lower() in "aeiou" else "a "
    return article + phrase[match.end() :]


def _describe(name: str, sentence: str) -> str | None:
    """What the sentence says the named method is: its expansion, appositive or purpose."""
    escaped = r"\(?" + re.escape(name) + r"\)?"
    function = r"(?:for|of|and|with|in|on|via|to|the|from|by|under)"
    patterns = (
        rf"{escaped}\s*,\s*(?:or|i\.e\.,?)\s+([^,;]{{4,80}})",  # "CalNF, or calibrated normalizing flows,"
        # "Sequential Conformal Prediction for Generative Models (SCOPE-Gen)"; the asides are gone by now,
        # so the expansion is the run of capitalised words just before the name
        rf"((?:[A-Z0-9][\w-]*\s+(?:{function}\s+)?){{1,8}}[A-Z][\w-]*)\s+{escaped}(?![\w-])",
        rf"{escaped}\s*,\s*((?:a|an|the)\s+[^;]{{6,200}})",  # "PermuCATE, an algorithm based on ..."
        rf"{escaped}\s+as\s+((?:a|an|the)\s+[^;]{{6,200}})",  # "LAION-C as a benchmark alternative"
        rf"((?:a|an|the)\s+(?:[\w-]+\s+){{1,8}}?)(?:called|named|dubbed|termed)\s+{escaped}",
    )
    for pattern in patterns:
        match = re.search(pattern, sentence)
        if match:
            found = match.group(1).strip()
            if normalize_text(found).startswith(normalize_text(name)):
                continue
            return _plain_article(found)
    # "NAME, which employs ..." / "NAME, to detect and extract ...": what it does, as "employing ..."
    where = re.search(rf"{escaped}\s*,?\s+where\s+(.{{12,}})", sentence)
    if where:  # "InstructRAG, where LMs explicitly learn ..."
        return where.group(1)
    doing = re.search(rf"{escaped}\s*,?\s+(?:which|that)\s+([a-z]{{3,}})\b(.*)", sentence) or re.search(
        rf"{escaped}\s*,\s+to\s+(?!the\b|this\b|that\b)([a-z]{{3,}})\b(.*)", sentence
    )
    if doing and doing.group(1).endswith("ly"):  # "which selectively computes" -> "selectively computing"
        adverb = doing.group(1)
        doing = re.match(r"\s+([a-z]{3,})\b(.*)", doing.group(2))
        if doing:
            return f"{adverb} {_gerund(doing.group(1))}{doing.group(2)}"
    if doing:
        rest = re.sub(r"^\s+and\s+([a-z]+)\b", lambda m: " and " + _gerund(m.group(1)), doing.group(2))
        return _gerund(doing.group(1)) + rest
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
    """A readable title for a paper whose listings gave none: "Name: what it is", else its own statement."""
    text = plain_text(abstract or "")
    if not re.search(r"\w{2}", text):
        return "Untitled paper"
    sentences = split_sentences(text)
    method = _method_name(sentences) or _named_statement(sentences)
    if method is not None:
        name, sentence = method
        # an acronym spelled out just before it: the words lead, what follows describes them
        spelled = re.search(rf"((?:[A-Z0-9][\w-]*\s+){{1,6}})\({re.escape(name)}\)\s*,\s*((?:a|an|the)\s+[^;]+)", sentence)
        if _ACRONYM.fullmatch(name) and spelled and _expands(spelled.group(1), name):
            name = spelled.group(1).strip()
            description = _plain_article(spelled.group(2))
        else:
            description = _describe(name, sentence)
        # Only what the abstract says of the name describes it; any other sentence
        # after "Name:" reads as a claim about the name that the abstract never made.
        if description:
            description = _tidy(description, MAX_TITLE_CHARS - len(name) - 2)
            if len(description.split()) >= 2 and name.lower() not in description.lower():
                return f"{name}: {_capitalize(description)}"
    return _capitalize(_tidy(_statement(sentences, method[0] if method else ""))) or "Untitled paper"


def _named_statement(sentences: list[str]) -> tuple[str, str] | None:
    """(name, sentence) when the paper's own statement opens with a name: "we introduce Mufu, which ..."."""
    for sentence in sentences:
        found = _WE_VERB.search(sentence)
        if found:
            named = re.match(rf"({_NAME})(?=\s*,|\s+which\b|\s+that\b)", found.group(1))
            return (named.group(1), sentence) if named else None
    return None


def _statement(sentences: list[str], name: str = "") -> str:
    """The paper's own sentence about what it does, else its opening sentence."""
    for sentence in sentences:
        found = _WE_VERB.search(sentence)
        if found:
            phrase = re.sub(r"^(?:that|how|whether)\s+", "", found.group(1), flags=re.IGNORECASE)
            if name and phrase.startswith(name):
                continue  # "we introduce Mufu, which ...": no more than the name
            if re.match(r"(?:this|these|it|the effectiveness|our)\b", phrase, re.IGNORECASE):
                continue  # refers back to something else: not a description
            return re.split(r",\s*(?:which|that|where|and)\b|;|\.\s", phrase)[0]
    return _LEAD_IN.sub("", sentences[0]) if sentences else ""


def draft_record(paper: MergedPaper) -> PaperRecord:
    """The paper as a record without identity (id and slug are filled later)."""
    derived = not paper.title
    links = dict(paper.links)
    # A repository the abstract names is the paper's code; a listed link always wins.
    code = code_url(paper.abstract) if "code" not in links else None
    if code and layout.is_web_url(code):  # the page reader's own test: never a link the page would refuse
        links["code"] = code
    return PaperRecord(
        id="",
        slug="",
        title=paper.title or derive_title(paper.abstract),
        title_derived=derived,
        authors=list(paper.authors),
        author_order=paper.author_order,
        abstract=paper.abstract,
        topic=paper.topic,
        keywords=list(paper.keywords),
        decision=paper.decision,
        **paper.texts,
        links=links,
        sources=paper.sources,
        filled_from=list(paper.filled_from),
        listed=dict(paper.listed),
    )


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
    slugs = layout.paper_slugs(taken_slugs)
    for record in records:
        if record.id:
            continue
        record.id = make_id(identity_key(record), taken_ids)
        taken_ids.add(record.id)
        record.slug = slugs.take(layout.paper_slug(record.title))
        taken_slugs.add(record.slug)
