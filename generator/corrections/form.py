"""The "Fix this paper" issue form: its fields, its template, its pre-filled link, its rendered body.

A reader who spots a wrong title or author opens a GitHub issue form from the
paper page; GitHub renders the submitted form as Markdown (one ``### Label``
section per field, ``_No response_`` for an empty one), and ``papersite
correct`` reads that body back. The three must agree on every field's id (the
URL query key that pre-fills it) and label (the heading GitHub writes), so the
fields are declared once, here, and the template in
``.github/ISSUE_TEMPLATE/correct-paper.yml`` is generated from them and from
the taxonomy (``papersite issue-form``).

In:  a taxonomy (template), a paper record (pre-filled URL), an issue body (parse).
Out: the template YAML, the URL, and ``FormValue`` per field found in a body.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from generator.pages.decisions import KNOWN as KNOWN_DECISIONS
from generator.pages.record import PAPER_FIELDS, PaperRecord, dump_yaml, topic_label
from generator.enrich.taxonomy import Taxonomy

TEMPLATE_FILE = "correct-paper.yml"
TEMPLATE_PATH = Path(".github") / "ISSUE_TEMPLATE" / TEMPLATE_FILE
LABEL = "correction"  # every issue made with the form carries it; the workflows select on it

# GitHub answers 414 beyond about 8 KB of URL, and a reader who is not signed in is
# first sent to /login?return_to=<this URL, percent-encoded again>, which can grow it
# by two thirds. 4,000 bytes keeps even that redirect under the limit.
MAX_URL_BYTES = 4000
# Ends an abstract the link had to shorten; ``papersite correct`` knows the mark,
# so a reader who leaves a shortened abstract alone does not cut the page's.
CUT_MARK = "[…]"
# The attribute of the paper page's "Fix this paper" link (its value: the paper's slug) that asks
# papersite.js to put the pre-filled link in its place: ``prefill_url`` without the abstract, from
# the site's fix shards (site/exports.py), with the abstract added whole while the URL stays within
# MAX_URL_BYTES; a longer abstract is left out, and an empty field changes nothing.
PREFILL_FROM_SITE = "data-ps-fix"

NO_RESPONSE = "_No response_"  # what GitHub writes for a field left empty
NO_CHOICE = "None"  # what a dropdown nobody touched may read
NO_DECISION = "No decision"  # the Decision choice that removes the page's decision
# The Author order choices: the first makes the page's order the paper's (no ``author_order``),
# the second says it is not known (the site then names no first author).
ORDER_AS_ON_PAPER = "As the paper gives them"
ORDER_NOT_KNOWN = "Not known (for example alphabetical)"
ORDER_CHOICES = (ORDER_AS_ON_PAPER, ORDER_NOT_KNOWN)


@dataclass(frozen=True)
class FormField:
    """One field of the form: ``id`` keys the URL pre-fill, ``label`` is the body's heading."""

    id: str
    label: str
    kind: str  # input | textarea | dropdown
    description: str
    required: bool = False


# The paper's fields come from the field table (``pages/record.py``), between the paper id
# that says which page and the reason that says why, in the table's form ranks. Issues already
# filed parse as long as the older fields keep their relative order (``parse_issue_body``).
FIELDS: tuple[FormField, ...] = (
    FormField("paper_id", "Paper id", "input", "Filled in by the paper page's \"Fix this paper\" link. Do not change it.", True),
    *(FormField(spec.form.id, spec.label, spec.form.kind, spec.form.description)
      for spec in sorted((spec for spec in PAPER_FIELDS if spec.form), key=lambda spec: spec.form.rank)),
    FormField("reason", "Reason", "textarea", "What is wrong, and how do you know? A link to the paper or the proceedings helps the maintainers.", True),
)
# form field id -> the page field it corrects
PAGE_FIELD = {spec.form.id: spec.name for spec in PAPER_FIELDS if spec.form}
FIELD_BY_ID = {f.id: f for f in FIELDS}


@dataclass(frozen=True)
class FormValue:
    """A field's text as submitted, and the body line it starts on (for error messages)."""

    text: str
    line: int


# --- the template -------------------------------------------------------------------------


def topic_choices(taxonomy: Taxonomy) -> list[str]:
    """Every dropdown choice: each area alone, then each of its sub-areas, in file order."""
    choices = []
    for area, subareas in taxonomy.areas:
        choices.append(area)
        choices.extend(topic_label(area, sub) for sub in subareas)
    return choices


def dropdown_choices(field_id: str, taxonomy: Taxonomy) -> list[str]:
    """The options of one dropdown of the form."""
    if field_id == "topic":
        return topic_choices(taxonomy)
    return decision_choices() if field_id == "decision" else list(ORDER_CHOICES)


def decision_choices() -> list[str]:
    """The Decision dropdown: the decisions the site knows (``pages/decisions.py``), then none."""
    return [decision.text for decision in KNOWN_DECISIONS] + [NO_DECISION]


def render_issue_form(taxonomy: Taxonomy) -> str:
    """The issue form template (YAML), byte-identical for the same taxonomy."""
    body: list[dict] = [
        {
            "type": "markdown",
            "attributes": {
                "value": (
                    "Correct what is wrong on a paper page. Each field holds what the page says now: change the "
                    "fields that are wrong and leave the others as they are (an empty field is left unchanged too). "
                    "A check runs on your issue and answers with the exact change, or with what to fix in the form; "
                    "once a maintainer approves it, the change goes into the site with the next batch of corrections."
                )
            },
        }
    ]
    for f in FIELDS:
        element: dict = {"type": f.kind, "id": f.id, "attributes": {"label": f.label, "description": f.description}}
        if f.kind == "dropdown":
            element["attributes"]["options"] = dropdown_choices(f.id, taxonomy)
        if f.required:
            element["validations"] = {"required": True}
        body.append(element)
    form = {
        "name": "Fix this paper",
        "description": "Correct the title, authors, abstract, topic, decision, keywords or links of a paper page.",
        "title": "Correct: ",
        "labels": [LABEL],
        "body": body,
    }
    header = (
        "# Generated by `papersite issue-form` from the taxonomy; edit generator/corrections/form.py\n"
        "# (the fields) or the taxonomy instead, then run it again.\n"
    )
    return header + dump_yaml(form)


# --- the pre-filled link --------------------------------------------------------------------


def prefill_url(repo_url: str, paper: PaperRecord, taxonomy: Taxonomy | None, with_abstract: bool = True) -> str:
    """A link to the form holding the paper's current values, at most MAX_URL_BYTES long.

    A long abstract is cut at a word and ends with CUT_MARK; if even the cut does
    not fit, the longest lists are left out: an empty field changes nothing.
    ``with_abstract=False`` leaves the abstract out (the paper page's link, which
    ``papersite.js`` completes with it; see ``PREFILL_FROM_SITE``).
    """
    title = " ".join(paper.title.split())
    values: dict[str, str] = {"paper_id": paper.id, "paper_title": title}
    if paper.authors:
        values["authors"] = "\n".join(" ".join(a.split()) for a in paper.authors)
    if paper.authors:
        values["author_order"] = ORDER_NOT_KNOWN if paper.author_order else ORDER_AS_ON_PAPER
    if paper.topic is not None and taxonomy is not None and taxonomy.contains(paper.topic.area, paper.topic.subarea):
        values["topic"] = paper.topic.label()
    if not paper.decision or paper.decision in decision_choices():  # another venue's words cannot be picked
        values["decision"] = paper.decision or NO_DECISION
    if paper.venue:
        values["venue"] = " ".join(paper.venue.split())
    if paper.keywords:
        values["keywords"] = "\n".join(paper.keywords)
    if paper.links:
        values["links"] = "\n".join(f"{name}: {paper.links[name]}" for name in sorted(paper.links))
    head = f"{repo_url}/issues/new?template={TEMPLATE_FILE}&title={quote('Correct: ' + title[:100], safe='')}"

    encoded: dict[str, str] = {}  # a field's value -> its encoding: the link may be built three times

    def url(fields: dict[str, str]) -> str:
        for value in fields.values():
            if value not in encoded:
                encoded[value] = quote(value, safe="")
        return head + "".join(f"&{key}={encoded[value]}" for key, value in fields.items())

    abstract = " ".join((paper.abstract or "").split()) if with_abstract else ""
    if abstract:
        whole = url({**values, "abstract": abstract})
        if len(whole) <= MAX_URL_BYTES:
            return whole
        room = MAX_URL_BYTES - len(url(values)) - len("&abstract=") - len(quote(f" {CUT_MARK}", safe=""))
        cut = _cut_to_fit(abstract, room)
        if cut:
            return url({**values, "abstract": f"{cut} {CUT_MARK}"})
    for dropped in ("links", "keywords", "authors"):
        if len(url(values)) <= MAX_URL_BYTES:
            break
        values.pop(dropped, None)
    if len(url(values)) > MAX_URL_BYTES:
        values["paper_title"] = ""  # an absurd title: the form still opens, on the right paper
    return url({k: v for k, v in values.items() if v})


def form_url(repo_url: str, paper: PaperRecord) -> str:
    """The form for this paper with only its id filled: the link of a paper page as written (a reader
    without scripts reaches the form on the right paper; papersite.js puts ``prefill_url``'s in its place)."""
    return f"{repo_url}/issues/new?template={TEMPLATE_FILE}&paper_id={quote(paper.id, safe='')}"


def _cut_to_fit(text: str, room: int) -> str:
    """The longest run of whole words from the start whose encoding fits in ``room`` bytes."""
    if room <= 0:
        return ""
    low, high = 0, len(text)
    while low < high:  # encoded length grows with the prefix length: bisect it
        middle = (low + high + 1) // 2
        if len(quote(text[:middle], safe="")) <= room:
            low = middle
        else:
            high = middle - 1
    prefix = text[:low]
    if low < len(text) and " " in prefix:
        prefix = prefix[: prefix.rindex(" ")]
    return prefix.rstrip()


# --- the rendered body ----------------------------------------------------------------------


def parse_issue_body(text: str) -> dict[str, FormValue]:
    """Field id -> submitted value, for each form section found in the body.

    GitHub writes the fields in form order, each as ``### Label``, a blank line and
    the value. A value may itself contain ``###`` lines, so only the headings of
    fields still to come, in order, start a new section. Empty fields are absent.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    headings = {f"### {f.label}": index for index, f in enumerate(FIELDS)}
    sections: list[tuple[int, int]] = []  # (field index, line index of heading)
    for number, line in enumerate(lines):
        index = headings.get(line.rstrip())
        if index is not None and (not sections or index > sections[-1][0]):
            sections.append((index, number))
    found: dict[str, FormValue] = {}
    for position, (index, start) in enumerate(sections):
        end = sections[position + 1][1] if position + 1 < len(sections) else len(lines)
        chunk = lines[start + 1 : end]
        first = 0
        while first < len(chunk) and not chunk[first].strip():
            first += 1
        value = "\n".join(chunk[first:]).strip("\n")
        field = FIELDS[index]
        if not value.strip() or value.strip() == NO_RESPONSE or (field.kind == "dropdown" and value.strip() == NO_CHOICE):
            continue
        found[field.id] = FormValue(value, start + 2 + first)
    return found
