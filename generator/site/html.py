"""Small HTML builders shared by the page renderers; every text argument is escaped here.

Generated pages are Markdown files whose content is raw HTML blocks, so listing
text never meets the Markdown parser: ``*``, ``[x](y)``, ``{{ }}`` in a title stay
literal. A raw block must not contain a blank line (it would end the block), so
``block`` joins its parts with single newlines.
"""

from __future__ import annotations

import html
import re

from generator.site import urls


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def link(href: str, text: str, cls: str | None = None, raw_text: bool = False) -> str:
    attr = f' class="{esc(cls)}"' if cls else ""
    return f'<a href="{esc(href)}"{attr}>{text if raw_text else esc(text)}</a>'


def out_link(url: str, text: str) -> str:
    """Outbound link, only for an http(s) URL; anything else is shown as text."""
    if not urls.is_web_url(url):
        return esc(text)
    return f'<a href="{esc(url.strip())}" rel="noopener nofollow">{esc(text)}</a>'


def block(*parts: str) -> str:
    text = "\n".join(p for p in parts if p)
    return re.sub(r"\n\s*\n", "\n", text)


def plain_title(text: str) -> str:
    """A title safe to hand to the theme's own templates (page title, header, <title>).

    Themes print ``page.title`` unescaped, or after ``striptags`` which decodes
    entities; both would let markup in a listing title through. Lookalike
    characters keep the title readable there; the page's own <h1> shows it exactly.
    """
    text = " ".join(text.split())
    text = text.replace("<", "‹").replace(">", "›")
    return re.sub(r"&(?=#?\w+;)", "＆", text)


def page(front_matter: dict, body: str) -> str:
    from generator.record import dump_yaml

    return f"---\n{dump_yaml(front_matter)}---\n\n{body.strip()}\n"
