"""generator/site/render/mathml.py: the abstract as a reader sees it (TeX text commands, links, spacing)."""

from __future__ import annotations

import re

from generator.site.render.mathml import render_abstract, render_text


def html_of(text: str) -> str:
    return render_text(text)[0]


def test_text_commands_become_inline_markup():
    assert html_of(r"we \emph{quantitatively} assess") == "we <em>quantitatively</em> assess"
    assert html_of(r"\textbf{bold}, \textit{it}, \texttt{code}, \underline{u}") == (
        "<strong>bold</strong>, <em>it</em>, <code>code</code>, <u>u</u>"
    )
    assert html_of(r"\textsc{Caps} and {\bf old} {\em style}") == '<span class="ps-sc">Caps</span> and <strong>old</strong> <em>style</em>'
    assert html_of(r"\textbf{\textit{nested}}") == "<strong><em>nested</em></strong>"
    assert html_of("**strong** and *em* but 2 * 3 * 4 and a*b") == "<strong>strong</strong> and <em>em</em> but 2 * 3 * 4 and a*b"


def test_math_only_where_it_is_math():
    html = html_of(r"$\textbf{Dis}$tribution shift of $O(n^2)$")
    assert html.startswith("<strong>Dis</strong>tribution") and html.count("<math") == 1
    assert "<math" not in html_of(r"the $\text{plain words}$ stay text")


def test_glued_sentences_are_spaced_for_display_only():
    assert html_of("drive it.We propose") == "drive it. We propose"
    assert html_of(r"bound $O(n)$.We show") .endswith(". We show")
    # abbreviations, decimals and domain names stay as written
    for kept in ("e.g.The", "U.S.A", "3.5B", "node.js", "ResNet.the"):
        assert kept in html_of(kept)


def test_urls_become_links_without_the_sentence_punctuation():
    html = html_of("Code at https://github.com/a/b. See (https://x.org/p_(1)) too.")
    assert '<a href="https://github.com/a/b" rel=nofollow>https://github.com/a/b</a>.' in html
    assert '<a href="https://x.org/p_(1)" rel=nofollow>' in html
    assert html_of(r"\url{https://a.org/x\_y} and \href{https://b.org}{the site}") == (
        '<a href="https://a.org/x_y" rel=nofollow>https://a.org/x_y</a> and '
        '<a href="https://b.org" rel=nofollow>the site</a>'
    )
    assert html_of("[code](https://anonymous.4open.science/r/X-1/) and <https://c.org>") == (
        '<a href="https://anonymous.4open.science/r/X-1/" rel=nofollow>code</a> and '
        '<a href="https://c.org" rel=nofollow>https://c.org</a>'
    )


def test_hostile_text_stays_text():
    html = html_of(r'\emph{<img src=x onerror=alert(1)>} [x](javascript:alert(1)) https://a.org/"onmouseover="x')
    tags = re.findall(r"<[^>]*>", html)  # what the browser reads as markup; the rest is text
    assert not [t for t in tags if re.search(r"img|javascript|onmouseover|onerror", t)], tags
    assert '<a href="https://a.org/" rel=nofollow>' in tags
    assert html_of(r"\textbf{unclosed <b>") == r"\textbf{unclosed &lt;b&gt;"


def test_paragraphs_are_kept():
    assert render_abstract("one.\n\ntwo") == "<p>one.</p><p>two</p>"
