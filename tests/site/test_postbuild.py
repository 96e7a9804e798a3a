"""generator/site/postbuild.py: the theme's indentation is taken out, nothing a reader sees changes."""

from __future__ import annotations

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
