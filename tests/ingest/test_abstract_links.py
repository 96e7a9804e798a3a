"""generator/ingest/abstract_links.py: URLs in an abstract and the paper's code repository."""

from __future__ import annotations

from generator.ingest.abstract_links import code_url, find_urls, is_code_url


def test_urls_are_found_without_trailing_punctuation():
    text = r"See https://github.com/a/b. Or \url{https://x.org/a\_b}, and (https://y.org/p)."
    assert find_urls(text) == ["https://github.com/a/b", "https://x.org/a_b", "https://y.org/p"]


def test_code_hosts_need_a_repository_path():
    for url in ("https://github.com/owner/repo", "https://www.github.com/owner/repo/tree/main", "https://gitlab.com/g/p",
                "https://huggingface.co/org/model", "https://bitbucket.org/o/r", "https://anonymous.4open.science/r/X-7CAC"):
        assert is_code_url(url), url
    for url in ("https://github.com", "https://github.com/owner", "https://owner.github.io/project/",
                "https://huggingface.co/datasets/org/data", "https://example.org/code/x/y"):
        assert not is_code_url(url), url


def test_the_first_repository_is_the_code_link():
    abstract = "Project page: https://p.github.io/x/. Code: https://github.com/p/x. Models: https://huggingface.co/p/m."
    assert code_url(abstract) == "https://github.com/p/x"
    assert code_url("No links here.") is None and code_url(None) is None
