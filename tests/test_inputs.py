"""generator/inputs.py: limits and strict readers refuse hostile input with a line, never a traceback or a hang."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator import inputs
from generator.inputs import InputError, gunzip_capped, load_json, load_yaml, load_yaml_with_lines

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def refused(load, text: str, first_line: int = 1) -> InputError:
    with pytest.raises(InputError) as caught:
        load(text, first_line)
    return caught.value


# --------------------------------------------------------------------------- YAML


def test_alias_bomb_is_refused_at_its_first_anchor():
    error = refused(load_yaml, BILLION_LAUGHS, first_line=2)
    assert error.line == 2 and "anchors" in error.message


def test_an_alias_without_the_anchor_scan_is_still_refused():
    # compose_yaml alone (what check uses) sees the alias as a node met twice
    error = refused(inputs.compose_yaml, "a: &x [1]\nb: *x\n")
    assert error.line == 2 and "aliases" in error.message


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("title: a\nauthors: []\ntitle: b\n", 3, "appears twice (first on line 1)"),
        ("topic:\n  area: X\n  area: Y\n", 3, "appears twice"),
        ("<<: {a: 1}\n", 1, "merge keys"),
        ("a: &anchor 1\n", 1, "anchors"),
        ("a: " + "1" * 5000 + "\n", 1, "has more than 100 characters"),
        ("a: [" * 40 + "]" * 40 + "\n", 1, "nested more than"),
    ],
)
def test_yaml_that_could_lose_or_hide_data_is_refused(text, line, words):
    error = refused(load_yaml, text)
    assert error.line == line and words in error.message


def test_ampersands_in_prose_are_not_anchors():
    assert load_yaml("title: R&D & more\nabstract: 'a &b'\n") == {"title": "R&D & more", "abstract": "a &b"}


def test_setting_lines_are_the_lines_of_their_keys():
    data, lines = load_yaml_with_lines("# settings\nsite_name: X\n\nsite_dir: out\n")
    assert data == {"site_name": "X", "site_dir": "out"} and lines == {"site_name": 2, "site_dir": 4}


yaml_scalars = st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False))
yaml_values = st.recursive(
    yaml_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)


@given(yaml_values)
@settings(max_examples=150, deadline=None)
def test_yaml_without_aliases_reads_as_the_safe_loader_reads_it(value):
    text = yaml.safe_dump({"v": value}, allow_unicode=True)
    assert load_yaml(text) == yaml.safe_load(text)


@given(st.text(alphabet="ab:-&*[]{}<>!|'\"#\n ,.0\t?%@`\\", max_size=60))
@settings(max_examples=400, deadline=None)
def test_random_yaml_gives_data_or_an_input_error(text):
    try:
        load_yaml(text)
    except InputError as error:
        assert error.line >= 1 and error.message


# --------------------------------------------------------------------------- JSON


@pytest.mark.parametrize(
    "text, words",
    [
        ('{"title": "a", "title": "b"}', "appears twice"),
        ("[" * 5000 + "]" * 5000, "nested more than 64"),
        ('{"entry": ' + "9" * 5000 + "}", "more than 100 characters"),
        ('{"entry": 1e999}', "too large"),
        ('{"confidence": NaN}', "not a JSON number"),
        ('{"title": "\\ud800"}', "lone surrogate"),
        ('{"title": ', "not valid JSON"),
    ],
)
def test_json_that_would_crash_or_lose_data_is_refused(text, words):
    assert words in refused(load_json, text, 7).message


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"title": "[" * 500 + "{" * 500})
    assert load_json(text)["title"].startswith("[[[")


def test_surrogate_pairs_are_text():
    assert load_json('"\\ud83d\\ude00"') == "\U0001f600"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=20,
)


@given(json_values)
@settings(max_examples=200, deadline=None)
def test_ordinary_json_reads_as_the_standard_library_reads_it(value):
    text = json.dumps(value)
    assert load_json(text) == json.loads(text)


@given(st.integers(1, 200), st.sampled_from("[{"))
@settings(max_examples=60, deadline=None)
def test_any_nesting_depth_gives_data_or_a_depth_error(depth, bracket):
    close = "]" if bracket == "[" else "}"
    inner = '"k": ' if bracket == "{" else ""
    text = (bracket + inner) * depth + "1" + close * depth if bracket == "{" else bracket * depth + close * depth
    if depth <= inputs.MAX_JSON_DEPTH:
        load_json(text)
    else:
        assert "nested" in refused(load_json, text).message


# --------------------------------------------------------------------------- gzip


def test_a_gzip_bomb_stops_at_the_cap():
    bomb = gzip.compress(b"\0" * (8 * 1024 * 1024))  # 8 KB that would inflate to 8 MiB
    assert len(bomb) < 64 * 1024
    error = refused(lambda data, _: gunzip_capped(data, limit=1024 * 1024), bomb)
    assert "inflates to more than 1 MiB" in error.message


def test_gzip_members_are_joined_and_truncation_is_an_error():
    assert gunzip_capped(gzip.compress(b"one ") + gzip.compress(b"two")) == b"one two"
    assert "corrupt" in refused(lambda data, _: gunzip_capped(data), gzip.compress(b"x" * 1000)[:-12]).message


def _zero_bomb(inflated: int) -> bytes:
    """gzip of ``inflated`` zero bytes, made in steps (the test never holds the inflated data)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    step = b"\0" * (1024 * 1024)
    parts = [packer.compress(step) for _ in range(inflated // len(step))]
    return b"".join(parts) + packer.flush()


def _peak_of(fn) -> int:  # noqa: ANN001
    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_a_small_file_that_inflates_to_256_mib_is_refused_holding_no_more_than_the_cap():
    bomb = _zero_bomb(256 * 1024 * 1024)
    assert len(bomb) < 300 * 1024
    cap = inputs.gzip_cap(len(bomb))
    assert cap < 100 * 1024 * 1024  # a hundred times the file at most (with a floor), not the 512 MiB limit

    def read() -> None:
        assert "inflates to more than" in refused(lambda data, _: gunzip_capped(data), bomb).message

    assert _peak_of(read) < cap + 8 * 1024 * 1024  # the cap, one step and the bytearray's slack


def test_a_file_within_its_cap_is_inflated_in_one_pass_without_a_second_copy():
    data = bytes(range(256)) * (16 * 4096)  # 16 MiB
    packed = gzip.compress(data, compresslevel=1)
    result = []
    peak = _peak_of(lambda: result.append(gunzip_capped(packed, limit=len(data))))
    assert result[0] == data
    assert peak < len(data) * 1.3 + len(packed)  # gzip.decompress joined its pieces: twice the text


def test_the_default_cap_leaves_room_for_large_reference_files():
    assert inputs.MAX_LISTING_BYTES >= 300 * 1024 * 1024


def test_a_lone_surrogate_in_yaml_is_refused():
    # libyaml refuses the escape itself; the pure-Python loader builds it and the walk refuses it
    message = refused(load_yaml, 'title: "a \\ud800 b"\n').message
    assert "lone surrogate" in message or "invalid Unicode character escape" in message


# --------------------------------------------------------------------------- which files may be read


def _place(root, kind: str):
    """A path in the project ``root`` of one kind; the file outside holds a secret."""
    import os

    outside = root.parent / "outside-secret.txt"
    outside.write_text("SECRET", encoding="utf-8")
    (root / "inside.txt").write_text("fine", encoding="utf-8")
    path = root / "sub" / "entry.txt"
    path.parent.mkdir(exist_ok=True)
    if kind == "regular":
        path.write_text("fine", encoding="utf-8")
    elif kind == "link inside":
        path.symlink_to(root / "inside.txt")
    elif kind == "relative link inside":
        path.symlink_to(os.path.join("..", "inside.txt"))
    elif kind == "link outside":
        path.symlink_to(outside)
    elif kind == "relative link outside":
        path.symlink_to(os.path.join("..", "..", "outside-secret.txt"))
    elif kind == "link to a link outside":
        (root / "hop.txt").symlink_to(outside)
        path.symlink_to(root / "hop.txt")
    elif kind == "folder linked from outside":
        (root.parent / "elsewhere").mkdir()
        (root.parent / "elsewhere" / "entry.txt").write_text("SECRET", encoding="utf-8")
        path.parent.rmdir()
        path.parent.symlink_to(root.parent / "elsewhere")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link to a fifo":
        os.mkfifo(root / "pipe")
        path.symlink_to(root / "pipe")
    elif kind == "folder":
        path.mkdir()
    elif kind == "dangling link":
        path.symlink_to(root / "nowhere.txt")
    return path


READABLE = ["regular", "link inside", "relative link inside"]
REFUSED = {
    "link outside": "leads outside the project",
    "relative link outside": "leads outside the project",
    "link to a link outside": "leads outside the project",
    "folder linked from outside": "leads outside the project",
    "fifo": "FIFO",
    "link to a fifo": "FIFO",
    "folder": "is a folder",
    "dangling link": "dangling",
}


@pytest.mark.parametrize("kind", READABLE)
def test_a_project_file_or_a_link_that_stays_inside_may_be_read(tmp_path, kind):
    root = tmp_path / "project"
    root.mkdir()
    path = _place(root, kind)
    assert inputs.readable_file(path, root.resolve()).read_text(encoding="utf-8") == "fine"


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_link_out_of_the_project_or_a_special_file_is_refused_before_it_is_read(tmp_path, kind):
    from generator.problems import PapersiteError

    root = tmp_path / "project"
    root.mkdir()
    path = _place(root, kind)
    with pytest.raises(PapersiteError) as caught:
        inputs.readable_file(path, root.resolve(), "sub/entry.txt")
    (problem,) = caught.value.problems
    assert problem.path == "sub/entry.txt" and problem.line == 1 and REFUSED[kind] in problem.message, problem


def test_a_file_named_on_the_command_line_may_lie_anywhere_but_must_be_a_file(tmp_path):
    import os

    from generator.problems import PapersiteError

    (tmp_path / "listing.jsonl").write_text("{}", encoding="utf-8")
    assert inputs.readable_file(tmp_path / "listing.jsonl", None) == tmp_path / "listing.jsonl"
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(PapersiteError, match="FIFO"):
        inputs.readable_file(tmp_path / "pipe", None)


def test_papersite_reads_its_own_files_only_where_they_are_regular_files_and_never_waits_on_one(tmp_path):
    """open_regular: a regular file (or a link to one) is opened under its own name; a FIFO without a writer
    and a device are refused at once, as OSError, which papersite's readers of their own files take for a
    missing file."""
    import os

    (tmp_path / "data.json").write_bytes(b"{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "data.json")
    with inputs.open_regular(tmp_path / "link.json") as handle:
        assert handle.read() == b"{}" and handle.name == str(tmp_path / "link.json")
    assert inputs.read_regular_text(tmp_path / "data.json") == "{}"
    os.mkfifo(tmp_path / "pipe")
    for special, kind in ((tmp_path / "pipe", "FIFO"), ("/dev/zero", "character device")):
        with pytest.raises(OSError, match=kind):
            inputs.read_regular(special)
    with pytest.raises(FileNotFoundError):
        inputs.read_regular(tmp_path / "missing")
