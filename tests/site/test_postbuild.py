"""generator/site/postbuild.py: the theme's indentation is taken out, nothing a reader sees changes."""

from __future__ import annotations

from html.parser import HTMLParser

from generator.site.postbuild import squeeze_html


def test_indentation_becomes_one_line_break() -> None:
    assert squeeze_html("<ul>\n    <li>a</li>\n\n      <li>b</li>\n  </ul>") == "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"


def test_words_stay_apart() -> None:
    assert squeeze_html("<p>one\n     two</p>") == "<p>one\ntwo</p>"  # a line break is a space in HTML


def test_preformatted_text_scripts_and_unicode_spaces_are_kept() -> None:
    pre = "<pre><code>@inproceedings{x,\n  title = {A},\n}</code></pre>"
    script = "<script>\n  var a = `x\n   y`;\n</script>"
    textarea = "<TEXTAREA>\n  keep\n</TEXTAREA>"
    text = f"<div>\n  {pre}\n  {script}\n {textarea}\n  a\u00a0\n  b</div>"
    assert squeeze_html(text) == f"<div>\n{pre}\n{script}\n{textarea}\na\u00a0\nb</div>"


def test_squeezing_twice_changes_nothing() -> None:
    text = "<div>\n  <pre> x\n  y</pre>\n   <p>z</p>\n</div>"
    assert squeeze_html(squeeze_html(text)) == squeeze_html(text)


class _Reading(HTMLParser):
    """What a page says: its head's tags as a multiset, its body as a sequence of
    tags (attributes decoded) and text, whatever the spelling of character references."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.head: list[tuple] = []
        self.body: list[tuple] = []
        self.in_head = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "head":
            self.in_head = True
        (self.head if self.in_head else self.body).append((tag, tuple(sorted(attrs))))

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self.in_head = False
        elif not self.in_head:
            self.body.append(("/" + tag,))

    def handle_data(self, data: str) -> None:
        if data.strip():
            (self.head if self.in_head else self.body).append((" ".join(data.split()),))


def _read(path) -> tuple[list, list]:  # noqa: ANN001
    reading = _Reading()
    reading.feed(path.read_text(encoding="utf-8"))
    return sorted(reading.head), reading.body


def test_shell_pages_say_what_the_engine_says_of_each_page(tmp_path) -> None:
    """Paper, author and keyword pages poured into their section's shell, and index pages whose body
    went in after the engine, read as the pages the engine renders when it is handed each page
    whole (``shells=False``): same head tags, same body, character references, the order of
    head tags and white space between tags aside."""
    from generator.cli import main as papersite
    from generator.config import load_config
    from generator.site.engines import build_with_engine
    from generator.site.stage import stage_docs, staged_overrides_dir
    from site_fixtures import write_project

    root = write_project(tmp_path / "project")
    assert papersite(["--project", str(root), "build", "--no-import", "--quiet"]) == 0
    config = load_config(root)
    shell_site = config.site_dir
    pages = sorted(p.relative_to(shell_site) for p in shell_site.rglob("*.html"))
    assert {rel.parts[0] for rel in pages} >= {"papers", "authors", "keywords", "topics", "index.html", "about"}
    assert not (shell_site / "papers" / "_shell").exists()
    assert not [rel for rel in pages if postbuild_marks(shell_site / rel)]

    engine_site = tmp_path / "engine-site"
    staged = stage_docs(config, shells=False)
    build_with_engine("mkdocs", root / "mkdocs.yml", docs_dir=staged.docs_dir, site_dir=engine_site,
                      overrides_dir=staged_overrides_dir(config), settings=config.engine_settings(), quiet=True)
    differing = [str(rel) for rel in pages if _read(shell_site / rel) != _read(engine_site / rel)]
    assert not differing, differing[:5]
    paper = next(rel for rel in pages if rel.parts[0] == "papers")
    head, _ = _read(shell_site / paper)
    assert any(tag[0] == "meta" and ("name", "citation_title") in tag[1] for tag in head)


def postbuild_marks(path) -> list[str]:  # noqa: ANN001
    from generator.site import postbuild

    text = path.read_text(encoding="utf-8")
    marks = (postbuild.TITLE_MARK, postbuild.CONTENT_MARK, postbuild.DESCRIPTION_MARK, postbuild.HEAD_MARK)
    return [mark for mark in marks if mark in text]
