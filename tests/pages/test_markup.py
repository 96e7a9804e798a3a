"""generator/pages/markup.py: a page body and theme keys never carry markup or script URLs into the site."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.pages.markup import plain_meta_text, scan_body, theme_field_problem, theme_meta

# The Markdown the engines run on the body (mkdocs.yml: toc, attr_list).
_MARKDOWN = markdown.Markdown(extensions=["toc", "attr_list"])


def rendered(body: str) -> str:
    return _MARKDOWN.reset().convert(body)


class _Elements(HTMLParser):
    """Elements and attributes as a browser would see them in rendered HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        if tag in {"script", "iframe", "object", "embed", "style", "svg", "form", "meta", "link", "base", "math"}:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"{tag} {name}")
            url = re.sub(r"[\x00-\x20]", "", value or "").lower()
            if name in ("href", "src", "action", "formaction") and url.startswith(("javascript:", "vbscript:", "data:")):
                self.found.append(f"{tag} {name}={value}")

    def handle_comment(self, data):  # noqa: ANN001
        self.found.append("<!--")


def dangerous(html: str) -> list[str]:
    """What in rendered HTML could run a script or hide content."""
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser.found


ATTACKS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "Text <b onmouseover=alert(1)>bold</b>",
    "- item\n\n    <script>alert(7)</script>",
    "```\n<script>8</script>\n```",
    "[x](javascript:alert(1))",
    "[x](  JaVaScRiPt:alert(1))",
    "[x](<javascript:alert(9)>)",
    "[x](java&#115;cript:alert(6))",
    "[x](&#106;avascript:1)",
    "[x](java&#x09;script:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x][r]\n\n[r]: javascript:alert(3)",
    "para\n{: onclick=\"alert(4)\" }",
    '![i](x){: onerror="alert(10)"}',
    "<javascript:alert(5)>",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html,<script>alert(1)</script>)",
    "<!-- hidden --> <?php x ?>",
]


@pytest.mark.parametrize("body", ATTACKS)
def test_each_attack_is_reported_and_rendered_harmless(body):
    safe, problems = scan_body(body)
    assert problems, f"check must flag {body!r}"
    assert not dangerous(rendered(safe)), rendered(safe)


def test_the_unguarded_markdown_would_run_them():
    # what this module protects against: Python-Markdown passes all of these through
    assert sum(bool(dangerous(rendered(body))) for body in ATTACKS) >= 14


@pytest.mark.parametrize(
    "body",
    [
        "Errata: Table 2 has the wrong sign.",
        "See [the paper](https://example.org/x) and [a page](../other-paper.md), or [top](#abstract).",
        "Mail <someone@example.org> or visit <https://example.org/a?b=1&c=2>.",
        "Inline code `<script>` and `a < b` stay code; a < b and x > y are text.",
        "A [ref][r] link.\n\n[r]: https://example.org/ref",
        "Titles like *A & B* and R&D, 5 &lt; 6, {braces} and {.class} stay.",
        "- one\n- two\n\n    indented text",
    ],
)
def test_ordinary_bodies_are_left_exactly_as_written(body):
    assert scan_body(body) == (body, [])


def test_problems_carry_the_line_of_the_body():
    body = "fine\nstill fine\n<script>x</script>\n[a](javascript:1)"
    lines = [line for line, _ in scan_body(body)[1]]
    assert lines[0] == 2 and 3 in lines


def test_control_and_bidi_characters_are_flagged_and_never_raw():
    safe, problems = scan_body("evil\x1b[2J and \u202egnp.exe and nul\x00")
    assert len(problems) == 2
    assert "\x1b" not in safe and "\x00" not in safe and "\u202e" not in safe and "&#x202e;" in safe


def test_other_invisible_characters_are_flagged_and_shown_as_references():
    for hidden in ("\u200b", "\u200d", "\u2060", "\ufeff", "\U000e0041", "\ufe0f", "\u061c", "\u200e", "\u034f", "\u3164"):
        safe, problems = scan_body(f"click\there{hidden}now")
        assert problems and hidden not in safe and f"&#x{ord(hidden):x};" in safe, hidden
    assert scan_body("tab\tis fine, so is Zoë and 李明") == ("tab\tis fine, so is Zoë and 李明", [])


def test_invisible_marks_unicode_calls_printable_are_flagged_in_plain_prose():
    """A variation selector or a filler is printable to Python: the fast path for plain lines let them through."""
    for hidden in ("\u034f", "\u3164", "\ufe0f", "\U000e0100"):
        safe, problems = scan_body(f"plain{hidden}prose")
        assert problems and f"&#x{ord(hidden):x};" in safe, hidden


PIECES = list("<>[]()`{}:=&#;/! \n\tjavscriptJSonerox.\"'") + ["javascript:", "<script>", "](", "&#106;", "{:", "\u202e", "\x00", "onclick=", "<img ", "[r]: "]


@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
@settings(max_examples=500, deadline=None)
def test_any_body_renders_without_script_once_made_safe(body):
    safe, problems = scan_body(body)
    assert not dangerous(rendered(safe)), (body, safe)
    assert (safe == body) or problems  # the build changes a body only where check complains
    assert scan_body(safe)[0] == safe or scan_body(safe)[1]  # scanning never raises on its own output


def test_theme_keys_are_plain_text_and_others_stay_out():
    extra = {
        "description": '"><script>alert(1)</script><meta x="',
        "status": 'new" onclick="alert(1)',
        "template": "404.html",
        "errata": ["x"],
    }
    meta = theme_meta(extra)
    assert list(meta) == ["description"]
    assert not re.search(r"[<>\"'&]", meta["description"]) and "script" in meta["description"]
    assert theme_meta({"description": ["a list"]}) == {}
    assert theme_field_problem("description", 3) and theme_field_problem("description", "a\x1bb")
    assert theme_field_problem("description", "Errata: Table 2") is None
    assert plain_meta_text("A & B <i>") == "A ＆ B ‹i›"
