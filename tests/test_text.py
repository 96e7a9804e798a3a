"""text.py: the one list of characters a reader cannot see, and look-alike words."""

from __future__ import annotations

import pytest

from generator.text import code_points, invisible_characters, is_invisible, lookalike_words

# The kinds the issue names, every code point of each range.
INVISIBLE_RANGES = {
    "zero-width": [0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF],
    "tag characters": list(range(0xE0001, 0xE0080)),
    "bidi marks, embeddings, overrides, isolates": [0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A)],
    "controls": [*range(0x00, 0x20), *range(0x7F, 0xA0)],
    "other format": [0x00AD, 0x180E, 0x2061, 0x2064, 0xFFF9],
    "variation selectors": [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)],
    "blank fillers and joiners": [0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0],
    "line separators": [0x2028, 0x2029],
}


@pytest.mark.parametrize("kind", sorted(INVISIBLE_RANGES))
def test_every_invisible_character_of_each_kind_is_found(kind: str) -> None:
    for point in INVISIBLE_RANGES[kind]:
        c = chr(point)
        assert is_invisible(c), f"U+{point:04X}"
        assert invisible_characters(f"a{c}b") == [c], f"U+{point:04X}"


def test_visible_text_of_any_script_has_none() -> None:
    for text in ("Zoë Ångström-Núñez", "李明", "Дмитрий", "μP and β-VAE", "x\u00a0y", "O(n²)", "😀", "a – b — c"):
        assert invisible_characters(text) == [], text
    assert invisible_characters("a\tb\nc", "\t\n") == [] and invisible_characters("a\tb") == ["\t"]
    assert code_points(invisible_characters("\u200f\u200e")) == "U+200E, U+200F"


def test_words_that_mix_latin_with_look_alikes() -> None:
    assert lookalike_words("diffusiоn models") == ["diffusiоn"]  # Cyrillic о
    assert lookalike_words("Ρrompt tuning") == ["Ρrompt"]  # Greek capital Rho
    assert lookalike_words("Тransformers") == ["Тransformers"]  # Cyrillic Т
    for fine in ("μP transfer", "β-VAE", "Дмитрий Иванов", "αβγ", "Zoë", "naïve Bayes"):
        assert lookalike_words(fine) == [], fine


# --------------------------------------------------------------------------- one rule, every user

from generator.text import BIDI_CONTROL, BIDI_CONTROLS, C0_C1_CONTROL, TEXT_WHITESPACE  # noqa: E402

HIDDEN = sorted({chr(p) for points in INVISIBLE_RANGES.values() for p in points} - set(TEXT_WHITESPACE))
SHOWN = ["é", "李", "Д", "β", "\u00a0", "²", "😀", "–", "ع", "\u05d0", "\ue000"]  # a private-use point shows, as a box


def _flagged_by_each_user(c: str) -> dict[str, bool]:
    """Whether each place that refuses or reports invisible text does so for ``a{c}b``."""
    from generator.config import site_name_problem
    from generator.corrections.correct import _check_text
    from generator.corrections.form import FormValue
    from generator.pages.markup import scan_body, theme_field_problem

    text = f"a{c}b"
    form_errors: list[str] = []
    _check_text("paper_title", FormValue(text, 1), lambda *args: form_errors.append(args[1]))
    return {
        "correction form": any("invisible character" in e for e in form_errors),
        "page body (check, build)": any("character" in m for _, m in scan_body(text)[1]),
        "theme field": theme_field_problem("description", text) is not None,
        "site name": site_name_problem(text) is not None,
    }


def test_every_user_refuses_exactly_the_invisible_characters() -> None:
    """The correction form once let U+200E, U+200F and U+061C through: each user had its own list."""
    for c in HIDDEN:
        flagged = _flagged_by_each_user(c)
        assert all(flagged.values()), f"U+{ord(c):04X}: {flagged}"
    for c in SHOWN:
        flagged = _flagged_by_each_user(c)
        assert not any(flagged.values()), f"U+{ord(c):04X}: {flagged}"


def test_tab_and_line_feed_are_text_except_in_a_one_line_name() -> None:
    from generator.config import site_name_problem
    from generator.pages.markup import scan_body, theme_field_problem

    assert invisible_characters("a\tb\nc", TEXT_WHITESPACE) == []
    assert scan_body("a\tb\nc")[1] == [] and theme_field_problem("description", "a\tb\nc") is None
    assert site_name_problem("a\tb") is not None and site_name_problem("a\nb") is not None
    assert invisible_characters("a\rb", TEXT_WHITESPACE) == ["\r"]  # a stray: files are read with universal newlines


def test_the_renderers_subsets_are_parts_of_the_one_rule() -> None:
    """What the renderers neutralise on their own (html.neutral_chars) is invisible by the one rule, and is all
    controls but tab and line feed, and every bidi control."""
    from generator.site.render.html import neutral_chars

    controls = {chr(p) for p in [*range(0x20), *range(0x7F, 0xA0)]} - set(TEXT_WHITESPACE)
    assert {c for c in map(chr, range(0x10000)) if C0_C1_CONTROL.match(c)} == controls
    assert {c for c in map(chr, range(0x10000)) if BIDI_CONTROL.match(c)} == set(BIDI_CONTROLS)
    assert set(BIDI_CONTROLS) == {"\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
    for c in sorted(controls | set(BIDI_CONTROLS)):
        assert is_invisible(c) and c not in neutral_chars(f"a{c}b"), f"U+{ord(c):04X}"


from hypothesis import example, given, strategies as st  # noqa: E402

from generator.text import fold, fold_joined  # noqa: E402

_NAME_CHARS = st.sampled_from(list("aZß ıİéE\u0301\u00a0\t.-'’ Ǆﬁ½\u2028x") + ["\u3000", "\u0300"])


@given(st.lists(st.text(_NAME_CHARS, max_size=8), max_size=6))
@example(["Smith Jr.", "Anna"])
@example(["x", "   ", "-y", "z'"])
@example(["\u0301a", "b\u0300"])
def test_folding_names_one_by_one_and_joining_them_is_folding_them_joined(names: list[str]) -> None:
    """``fold_joined`` (a paper list item's folded names, from each name's cached fold) is ``fold`` of the names
    joined, whatever spacing, punctuation, accents or case they hold at either end."""
    assert fold_joined(names) == fold(" ".join(names))
