"""URLs in an abstract: where they are, and which one is the paper's code.

In: abstract text as a listing gave it (plain text, perhaps with ``\\url{..}``,
``\\href{..}{..}``, ``<..>`` or Markdown ``[..](..)`` around a URL).
Out: the URLs with their spans (for the abstract display, ``site/mathml.py``)
and the first code repository URL (for ``links.code``, set by ``titles.py`` at
import). The one URL pattern of the project lives here so that the link a
reader sees in the abstract and the "Code" link are the same URL.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# Ends at space, quotes, angle brackets, TeX braces and backslashes; a sentence's
# closing punctuation is trimmed afterwards (``trim_url``).
URL = re.compile(r"https?://[^\s<>\"'{}\\\[\]`]+", re.IGNORECASE)

# Hosts whose URLs are a code repository, with the path a repository has
# (owner/name), so that "https://github.com" alone or a user's profile is not one.
# Project pages (*.github.io) are sites, not code; a Hugging Face dataset is data.
_CODE_PATH = {
    "github.com": re.compile(r"/[\w.-]+/[\w.-]+"),
    "gitlab.com": re.compile(r"/[\w.-]+/[\w.-]+"),
    "bitbucket.org": re.compile(r"/[\w.-]+/[\w.-]+"),
    "codeberg.org": re.compile(r"/[\w.-]+/[\w.-]+"),
    "huggingface.co": re.compile(r"/(?!datasets/|papers/|blog/|docs/)[\w.-]+/[\w.-]+"),
    "anonymous.4open.science": re.compile(r"/r/[\w.-]+"),
}


def trim_url(url: str) -> str:
    """The URL without the sentence punctuation that follows it in running text."""
    while url and url[-1] in ".,;:!?*":
        url = url[:-1]
    # a closing bracket belongs to the URL only when the URL opened one
    while url.endswith(")") and url.count(")") > url.count("("):
        url = url[:-1]
    return url


def find_urls(text: str) -> list[str]:
    """Every http(s) URL in the text, trimmed, in order of appearance."""
    return [trim_url(m.group(0).replace("\\_", "_")) for m in URL.finditer(text.replace("\\_", "_"))]


def is_code_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = _CODE_PATH.get(host)
    return path is not None and path.match(parts.path) is not None


def code_url(abstract: str | None) -> str | None:
    """The first code repository the abstract links to, or None."""
    if not abstract:
        return None
    return next((url for url in find_urls(abstract) if is_code_url(url)), None)
