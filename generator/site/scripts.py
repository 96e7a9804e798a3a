"""The site's scripts as a reader's browser fetches them: without comments and layout.

Our scripts explain themselves at length and lunr.js (2.3.9, as the installed mkdocs ships it) is
its commented source: 265 KB of scripts in all at 11,672 papers, of which a first search fetches
~190 KB (lunr.js alone 99.8 KB). ``rjsmin`` takes out the comments and the spaces a script does
not need and changes nothing else (names, strings and regular expressions stay as written), so the
scripts tested in node (tests/site/test_browser_contract.py) are what the site ships. A leading
comment that states a licence is kept.
"""

from __future__ import annotations

import re

import rjsmin

_LICENCE = re.compile(rb"\A\s*/\*(?:(?!\*/).)*?(?:@license|Copyright)(?:(?!\*/).)*\*/\s*", re.DOTALL)


def shipped_script(source: bytes) -> bytes:
    """A script's source -> the bytes the site serves (module docstring)."""
    licence = _LICENCE.match(source)
    head = licence.group(0).strip() + b"\n" if licence else b""
    body = source[licence.end():] if licence else source
    return head + rjsmin.jsmin(body.decode("utf-8")).encode("utf-8")


def shipped_asset(name: str, data: bytes) -> bytes:
    """An asset of ours by file name -> the bytes the site serves: a script as ``shipped_script``, the rest as it is."""
    return shipped_script(data) if name.endswith(".js") else data
