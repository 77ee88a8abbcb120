"""The word lists goal search reads (``data/goalsearch/*.yaml``: phrases, categories,
functions, speech acts, synonyms, need paraphrases); see that folder's README."""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable


def word_list_file(name: str) -> Traversable:
    """The packaged word list ``name`` (``"speech.yaml"``)."""
    return resources.files("groundplan.knowledge").joinpath("data", "goalsearch", name)


def word_list_text(name: str) -> str:
    """The text of the packaged word list ``name``."""
    return word_list_file(name).read_text()


__all__ = ["word_list_file", "word_list_text"]
