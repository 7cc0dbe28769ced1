"""The cheap pass that picks lines before any detailed pattern runs loses nothing: reading only the
lines it picks gives the same facts as reading every line in full; it is built from what each
signature, value reader and block finder declares; a signature that declares no trigger is tried on
every line."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from conftest import DATA

from tfdoctor import logs
from tfdoctor.logs import evidence as ev
from tfdoctor.logs import values
from tfdoctor.logs.triggers import Finder, all_starts

CORPUS = sorted((DATA / "explain").glob("*.txt"))
SPLITS = sorted(d for d in (DATA / "explain").iterdir() if d.is_dir())
TOOLS = sorted(p for d in ("nvidia-smi", "nvcc", "system", "worker") for p in (DATA / d).iterdir()
               if p.suffix != ".md")


@pytest.mark.parametrize("path", CORPUS + TOOLS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_cheap_pass_gives_the_facts_of_reading_every_line(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    assert logs.read_text(text) == logs.read_text(text, every_line=True)


@pytest.mark.parametrize("split", SPLITS, ids=lambda d: d.name)
def test_every_case_of_every_split_reads_the_same_from_the_cheap_pass(split):
    """The same for each case of the blind splits (a word that normalising makes, "版本" read as
    "version", must be one the cheap pass looks for)."""
    differ = [p.name for p in sorted(split.glob("*.txt"))
              if logs.read_text(_text(p)) != logs.read_text(_text(p), every_line=True)]
    assert not differ


def test_the_whole_corpus_as_one_log_reads_the_same():
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in CORPUS)
    assert logs.read_text(text) == logs.read_text(text, every_line=True)


def _renumbered(line: str, k: int) -> str:
    """The line with every number changed (and some of them longer): the same message, other values."""
    return re.sub(r"\d+", lambda m: str(int(m.group()) * (k + 2) + k), line)


@pytest.mark.parametrize("path", CORPUS + TOOLS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lines_repeated_with_other_numbers_read_as_every_line(path):
    """A picked line's shape (its digits masked) that changed only counters twice in a row is skipped
    after: whatever the numbers, that loses nothing reading every picked line would find."""
    varied = _varied(_text(path))
    assert logs.read_text(varied) == logs.read_text(varied, by_shape=False)


@pytest.mark.parametrize("split", SPLITS, ids=lambda d: d.name)
def test_lines_repeated_with_other_numbers_read_as_every_line_in_the_splits(split):
    """The same for every case of the blind splits."""
    differ = [p.name for p in sorted(split.glob("*.txt"))
              if logs.read_text(v := _varied(_text(p))) != logs.read_text(v, by_shape=False)]
    assert not differ


def _varied(text: str) -> str:
    """Each line followed by five copies of it with other numbers."""
    return "\n".join(f"{line}\n" + "\n".join(_renumbered(line, k) for k in range(5))
                     for line in text.splitlines())


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def test_a_quiet_shape_is_skipped_and_its_counters_still_count():
    """Near misses repeated with new numbers are skipped once two of them changed nothing; an error line
    repeated so is still counted (its shape changes only counters), and a line of such a shape with a
    new message is read."""
    near = "".join(f"2024-05-01 10:00:{i % 60:02d}.{i:06d}: W cudnn was seen near step {i * 7919}\n"
                   for i in range(1000))
    errors = "".join(f"E0101 10:00:00.{i:06d} {i} x.cc:1] failed call to cuInit: CUDA_ERROR_NO_DEVICE at "
                     f"step {i * 104729}\n" for i in range(300))
    reader = logs.Reader("explain")
    reader.feed_chunk((near + errors + "Driver Version: 535.104.05\n").encode())
    assert reader._fresh < 30  # lines read, of 1,300: the rest were skipped
    facts = reader.facts()
    assert facts["log"]["counts"]["cuinit"] == 300  # each line is another step: each counted
    assert facts["nvidia_smi"]["driver_version"] == "535.104.05"
    assert facts == logs.read_text(near + errors + "Driver Version: 535.104.05\n", every_line=True)


def test_a_line_read_in_the_light_of_the_one_before_is_skipped_paired_with_its_shape():
    """A line after one that names TensorFlow (a value may follow it) is learnt and skipped paired with the
    shape of the line before: near misses alternating so are skipped too, while the answers to printed
    versions (each gives a value) and what a print asks of the lines after it are read as before."""
    near = "".join(f"2024-05-01 10:00:00.{i:06d}: W tensorflow was seen near step {i * 7919 + 100_000}\n"
                   f"2024-05-01 10:00:00.{i:06d}: W cudnn note {i * 104729 + 100_000}\n" for i in range(2000))
    prints = "".join(f"print(tf.__version__)\nprint(keras.__version__)\n2.{i}.0\n3.{i}.1\n"
                     for i in range(12, 17))
    text = near + prints + near
    reader = logs.Reader("explain")
    reader.feed_chunk(text.encode())
    assert reader._fresh < 100  # lines read, of 8,020: the rest were skipped
    facts = reader.facts()
    assert facts == logs.read_text(text, by_shape=False)
    assert facts["tensorflow"]["version"] == "2.12.0"  # (the first one printed)


def test_shapes_pause_where_they_do_not_pay_and_read_the_same():
    """A log of distinct messages pauses the learning of shapes (it costs each line read), for longer each
    time it does not pay, and takes it up again: near misses repeated with new numbers after the distinct
    ones are still skipped, and the facts are those of reading every picked line."""
    corpus = [line for p in CORPUS[:60]
              for line in p.read_text(encoding="utf-8", errors="replace").splitlines()]
    distinct = [f"cudnn note {i % 10_000} of {i // 10_000}" for i in range(20_000)]  # (short: own shapes)
    alone = logs.Reader("explain")
    alone.feed_chunk("\n".join(distinct).encode())
    assert not alone._paying.on and alone._paying.pause >= 4  # paused twice, the second time longer
    near = [f"2024-05-01 10:00:00.{i:06d}: W cudnn was seen near step {i * 7919 + 100_000}"
            for i in range(60_000)]
    text = "\n".join(distinct + near + corpus)
    reader = logs.Reader("explain")
    reader.feed_chunk(text.encode())
    read_near = reader._fresh - len(distinct) - len(corpus)
    assert 0 < read_near < 20_000  # read while paused, then skipped
    assert reader.facts() == logs.read_text(text, by_shape=False)


def test_every_declared_word_is_lower_case_and_picks_its_line():
    words = logs.finder("explain").declared
    assert {a for s in ev.SIGNATURES for a in s.anchors} <= set(words)
    assert values.triggers() <= set(words)
    assert all(w == w.lower() and w.strip() for w in words)
    finder = logs.finder("explain")
    for word in words:
        line = f"{word[1:]} yy" if word.startswith("\n") else f"xx {word} yy"  # "\n...": at a line's start
        chunk = f"nothing here\n{line}\nnothing there\n".encode()
        assert finder.starts(chunk) == [13], word


@pytest.mark.parametrize("automaton", [True, False], ids=["ahocorasick-rs", "stdlib regex"])
def test_both_searches_pick_the_same_lines(automaton):
    rng = random.Random(7)
    words = ["cuinit", "cudnn", " /usr", "nvidia-smi", "oom", "\x1b"]
    finder = Finder(words, automaton=automaton)
    pieces = ["cuinit", "cudnn", "/usr/lib", "nvidia-smi", "room", "zoom", "abc", "\n", " ", "\x1b[0m",
              "CUDNN"]
    for _ in range(300):
        chunk = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40))).encode()
        lines = chunk.split(b"\n")
        starts = all_starts(chunk)
        want = [s for s, line in zip(starts, lines)
                if any(w in (b" " + line.lower()).decode() for w in words)]
        assert finder.starts(chunk) == want, chunk
        for line in lines:  # and, per line, the words a line holds (which signatures to try)
            low = line.decode().lower()
            assert finder.found(low) == {w for w in words if w in " " + low}, line
    assert (finder._automaton is not None) == automaton  # ahocorasick-rs is a dependency: really tried


def test_a_signature_without_triggers_is_tried_on_every_line():
    sig = ev._sig("test-unanchored", (), r"zebra crossing (\d+)", ("n",))
    assert logs.trigger_words([*ev.SIGNATURES, sig], "explain") is None  # so every line is read
    assert Finder(None).starts(b"a\nb\nc") == [0, 2, 4]
    hits = ev.match_line("a zebra crossing 42", "a zebra crossing 42", frozenset(), unanchored=(sig,))
    assert [(s.kind, m.group(1)) for s, m in hits] == [("test-unanchored", "42")]
    assert ev.UNANCHORED == ()  # the shipped signatures all declare theirs


def test_read_chunks_keeps_lines_whole_cuts_long_ones_and_stops_at_the_limit():
    import io

    from tfdoctor.logs.lines import MAX_LINE, read_chunks

    data = b"".join(b"line %d\n" % i for i in range(300_000)) + b"x" * (MAX_LINE * 5) + b"\nlast"
    chunks = list(read_chunks(io.BytesIO(data), size=1 << 16))
    assert all(c.endswith(b"\n") for c in chunks[:-1]) and chunks[-1] == b"last"
    lines = b"".join(chunks).split(b"\n")
    assert lines[:2] == [b"line 0", b"line 1"] and lines[299_999] == b"line 299999"
    assert lines[300_000].strip(b"x") == b"" and lines[301] == b"line 301"  # no line split
    assert max(map(len, chunks)) <= (1 << 16) + MAX_LINE + 1  # bounded, whatever the lines
    assert sum(map(len, read_chunks(io.BytesIO(data), limit=1000))) <= 1000 + 1
    one = list(read_chunks(io.BytesIO(b"y" * (10 << 20)), size=1 << 20))  # one 10 MB line: 4 KB kept
    assert one == [b"y" * MAX_LINE + b"\n"]


def test_a_chunk_dense_with_trigger_words_holds_few_matches_at_once():
    import tracemalloc

    finder = logs.finder("explain")
    chunk = (b"\x1b" * 1000 + b"\n") * 1048  # a million matches in one chunk
    tracemalloc.start()
    try:
        starts = finder.starts(chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert starts == all_starts(chunk)
    assert peak < 32 << 20, peak  # searched a piece at a time, not held all at once


@pytest.mark.parametrize("at", [65_530, 65_534, 65_536, 131_070, 200_000])
def test_a_word_across_the_searchs_piece_boundary_in_a_long_line_is_found(at):
    line = b"x" * at + b"cudnn" + b"y" * 70_000 + b"\n"
    assert logs.finder("explain").starts(b"a\n" + line + b"b\n") == [2]


# the full-width and typographic forms that normalising reads as ASCII (tfdoctor/logs/lines.py)
_WIDE = {":": "\uff1a", "=": "\uff1d", "(": "\uff08", ")": "\uff09", ",": "\uff0c", ";": "\uff1b",
         "!": "\uff01", "?": "\uff1f", "'": "\u2019", '"': "\u201d", " ": "\u3000"}


def test_a_word_that_normalising_makes_is_picked_in_its_other_spellings():
    """A line whose trigger word appears only once normalised ("driver version：", "显卡gpu" parted as
    "显卡 gpu", "tensorflow版本" as "tensorflow version") is still picked, and reads the same."""
    finder = logs.finder("explain")
    missed = []
    for word in finder.declared:
        spellings = {"".join(_WIDE.get(c, c) for c in word)}
        if word.startswith(" ") and word[1:2].isalnum():
            spellings.add("显卡" + word[1:])  # CJK text against it: normalising parts them with a space
        if word.endswith(" ") and word[-2:-1].isalnum():
            spellings.add(word[:-1] + "的")
        for spelt in spellings - {word}:
            line = f"{spelt[1:]}yy" if spelt.startswith("\n") else f"xx{spelt}yy"  # ("\n...": a line's start)
            if finder.starts(f"nothing\n{line}\nnothing\n".encode()) != [8]:
                missed.append(spelt)
    assert not missed
    for text in ("tensorflow版本\n\n2.15.0\n", "Driver Version\uff1a535.104.05\n", "驱动版本：450.102.04\n"):
        assert logs.read_text(text) == logs.read_text(text, every_line=True)


def test_an_nvidia_smi_table_pasted_without_its_banner_reads_the_same():
    """No banner opened the table: each GPU's memory row is still picked under its GPU's row."""
    rows = ("|===============================+======================+======================|\n"
            "|   0  Tesla V100-SXM2...  On   | 00000004:04:00.0 Off |                    0 |\n"
            "| N/A   44C    P0    55W / 300W |    620MiB / 16130MiB |      0%      Default |\n")
    facts = logs.read_text(rows)
    assert facts == logs.read_text(rows, every_line=True)
    assert facts["nvidia_smi"]["gpus"][0]["memory_used_mib"] == 620
