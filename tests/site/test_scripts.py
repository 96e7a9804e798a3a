"""generator/site/scripts.py: the site's scripts lose comments and layout, never meaning."""

from __future__ import annotations

import subprocess
from pathlib import Path

from generator.site import search
from generator.site.scripts import shipped_asset, shipped_script
from generator.site.stage import ASSETS_DIR
from tests.site.test_browser_contract import _node

TRICKY = rb"""/* dropped: then what must stay as written */
var s = "/* not a comment */ // nor this", t = '\'//\'', u = `a ${1 + 2}  b`;
var r = /\/\*[^*]*\*\//g, half = 10 / 2 / 5, k = "x".replace(/ +/g, "-");
// dropped too
var o = { "a b": 1 }, re = /[/]/.test("/");
function f(a, b) { return a
  + b }
console.log(JSON.stringify([s, t, u, r.source, half, k, o, re, f(1, 2), "  two  spaces  "]));
"""


def _run(node: str, path: Path) -> str:
    run = subprocess.run([node, str(path)], capture_output=True, text=True, encoding="utf-8", check=False)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_a_shipped_script_does_what_its_source_does(tmp_path):
    node = _node()
    source, shipped = tmp_path / "source.js", tmp_path / "shipped.js"
    source.write_bytes(TRICKY)
    shipped.write_bytes(shipped_script(TRICKY))
    assert b"dropped" not in shipped.read_bytes() and len(shipped.read_bytes()) < len(TRICKY)
    assert _run(node, shipped) == _run(node, source)


def test_every_script_the_site_ships_parses_and_lunrs_licence_stays(tmp_path):
    node = _node()
    sources = [p for p in sorted(ASSETS_DIR.iterdir()) if p.suffix == ".js"] + [search.lunr_js_source()]
    assert len(sources) > 5
    for source in sources:
        path = tmp_path / source.name
        path.write_bytes(shipped_asset(source.name, source.read_bytes()))
        check = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, check=False)
        assert check.returncode == 0, (source.name, check.stderr)
        assert len(path.read_bytes()) < len(source.read_bytes()), source.name
    lunr = (tmp_path / "lunr.js").read_text(encoding="utf-8")
    assert lunr.startswith("/**\n * lunr - http://lunrjs.com") and "@license MIT" in lunr.split("*/")[0]
    assert len(lunr) < 0.5 * len(search.lunr_js_source().read_text(encoding="utf-8"))


def test_what_is_not_a_script_is_shipped_as_it_is():
    css = (ASSETS_DIR / "papersite.css").read_bytes()
    assert shipped_asset("papersite.css", css) == css
