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
