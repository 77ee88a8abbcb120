"""Sentence embeddings with all-MiniLM-L6-v2, offline, in NumPy.

The encoder moved to ``groundplan.knowledge.embedding`` (the affordance inference of the
knowledge layer uses it too, and lower layers never import the LLM layer); this module keeps
the old import path working.

    enc = MiniLM.load()                  # ~0.3 s
    v = enc.encode(["give me the apple", "put the apple in the trash can"])   # (2, 384), unit rows
"""

from __future__ import annotations

from groundplan.knowledge.embedding import (
    MODEL_PACKAGE,
    EmbedderUnavailable,
    MiniLM,
    bundled_minilm_dir,
    read_safetensors,
    shared_minilm,
)

__all__ = ["MiniLM", "bundled_minilm_dir", "read_safetensors", "shared_minilm", "MODEL_PACKAGE",
           "EmbedderUnavailable"]
