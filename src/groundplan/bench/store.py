"""Results store: one SQLite file, one row per episode with its provenance.

Rows are keyed by (run_id, task_id, seed) (UNIQUE); each finished episode is written in its
own transaction the moment it arrives, so a killed run loses nothing it finished and a
re-run skips what is there. A run's configuration (method, dataset and version, backend,
model, prompt hash, planner ...) is recorded once; resuming a run with a different one is
refused instead of mixing results. SQLite failures (database locked, disk full, read-only
file) become one-line ``StoreError``s.

Each episode keeps what ``groundplan bench show`` prints: the task's instruction and gold
goal, the goal the method produced, its plan, verdict fields and trace. Files written before
a column existed stay readable (the missing column reads as empty); the first episode
written to such a file adds the column."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Optional

from groundplan.errors import GroundplanError

#: 2 added ``instruction`` and ``gold_goal`` to episodes (older files read them as empty)
SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    method TEXT NOT NULL,
    dataset TEXT NOT NULL,
    dataset_version TEXT NOT NULL,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS episodes (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    task_id TEXT NOT NULL,
    seed INTEGER NOT NULL,
    method TEXT NOT NULL,
    dataset TEXT NOT NULL,
    dataset_version TEXT NOT NULL,
    subset TEXT NOT NULL,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    success INTEGER NOT NULL,
    metrics TEXT NOT NULL,
    llm_calls INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    wall_time REAL NOT NULL,
    goal TEXT,
    plan TEXT NOT NULL,
    error TEXT,
    source TEXT NOT NULL,
    trace TEXT NOT NULL,
    finished TEXT NOT NULL,
    instruction TEXT,
    gold_goal TEXT,
    UNIQUE (run_id, task_id, seed)
);
CREATE INDEX IF NOT EXISTS episodes_run ON episodes(run_id);
"""


#: the episode columns every schema version has (``trace`` aside: read only when asked)
BASE_COLUMNS = ("run_id", "task_id", "seed", "method", "dataset", "dataset_version", "subset", "backend", "model",
                "prompt_hash", "status", "success", "metrics", "llm_calls", "prompt_tokens", "completion_tokens",
                "wall_time", "goal", "plan", "error", "source", "finished")
#: episode columns added after schema version 1, in order (all TEXT, NULL when unknown)
ADDED_COLUMNS = ("instruction", "gold_goal")


class StoreError(GroundplanError):
    """The results store cannot be read or written."""


@dataclass(frozen=True)
class RunRecord:
    run_id: str
    method: str
    dataset: str
    dataset_version: str
    backend: str
    model: str
    prompt_hash: str
    config: Mapping[str, Any]
    created: str = ""

    def identity(self) -> dict[str, Any]:
        """What must match for a re-run to continue this run."""
        return {"method": self.method, "dataset": self.dataset, "dataset_version": self.dataset_version,
                "backend": self.backend, "model": self.model, "prompt_hash": self.prompt_hash,
                "config": json.loads(json.dumps(self.config, sort_keys=True))}


@dataclass(frozen=True)
class EpisodeRow:
    run_id: str
    task_id: str
    seed: int
    method: str
    dataset: str
    dataset_version: str
    subset: str
    backend: str
    model: str
    prompt_hash: str
    status: str
    success: bool
    metrics: Mapping[str, Any]
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    wall_time: float
    goal: Optional[str]
    plan: tuple[str, ...]
    error: Optional[str]
    source: str
    trace: tuple[Mapping[str, Any], ...] = ()
    finished: str = ""
    #: the task's instruction and its gold (check) goal; "" / None in files written before
    #: the store kept them
    instruction: str = ""
    gold_goal: Optional[str] = None


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _explain(exc: sqlite3.Error) -> str:
    msg = str(exc)
    low = msg.lower()
    if "locked" in low or "busy" in low:
        return f"{msg} (another process holds a write lock; finished episodes are saved, re-run to resume)"
    if "full" in low:
        return f"{msg} (free some space; finished episodes are saved, re-run to resume)"
    if "readonly" in low or "read-only" in low:
        return f"{msg} (the file or its folder is not writable)"
    if "not a database" in low or "malformed" in low:
        return f"{msg} (not a groundplan results file, or damaged)"
    return msg


def _explain_os(exc: OSError) -> str:
    import errno

    what = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"disk full: {what} (free some space; finished episodes are saved, re-run to resume)"
    if exc.errno == errno.EROFS:
        return f"{what} (the file system is read-only)"
    return f"{what} (finished episodes are saved, re-run to resume)"


class ResultStore:
    """``with ResultStore(path) as store: ...``. Single writer (the runner's main process)."""

    def __init__(self, path: str | Path, *, timeout: float = 30.0, must_exist: bool = False):
        self.path = Path(path)
        self._columns: Optional[set[str]] = None
        if must_exist and not self.path.is_file():
            raise StoreError(f"{self.path}: results file not found")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), timeout=timeout, isolation_level=None)
            self.conn.row_factory = sqlite3.Row
            self.conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.executescript(SCHEMA)
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {_explain(exc)}") from None
        except OSError as exc:
            raise StoreError(f"{self.path}: {exc.strerror or exc}") from None

    # -- lifecycle
    def close(self) -> None:
        try:
            self.conn.close()
        except sqlite3.Error:
            pass

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, sql: str, params: Iterable[Any]) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.execute(sql, tuple(params))
            except BaseException:
                if self.conn.in_transaction:  # SQLite may have rolled back itself (SQLITE_FULL)
                    self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {_explain(exc)}") from None
        except OSError as exc:  # the disk itself (ENOSPC, EIO, EROFS) rather than SQLite's report of it
            raise StoreError(f"{self.path}: {_explain_os(exc)}") from None

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self.conn.execute(sql, tuple(params)).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {_explain(exc)}") from None

    # -- runs
    def get_run(self, run_id: str) -> Optional[RunRecord]:
        rows = self._read("SELECT * FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            return None
        r = rows[0]
        return RunRecord(r["run_id"], r["method"], r["dataset"], r["dataset_version"], r["backend"], r["model"],
                         r["prompt_hash"], json.loads(r["config"]), r["created"])

    def ensure_run(self, run: RunRecord) -> RunRecord:
        """Create the run, or check that an existing run of that id has the same identity."""
        old = self.get_run(run.run_id)
        if old is None:
            self._write("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?)",
                        (run.run_id, _now(), run.method, run.dataset, run.dataset_version, run.backend, run.model,
                         run.prompt_hash, json.dumps(run.config, sort_keys=True)))
            return self.get_run(run.run_id)  # type: ignore[return-value]
        a, b = old.identity(), run.identity()
        if a != b:
            diff = [k for k in a if a[k] != b[k]]
            k = diff[0]
            if k == "config":
                keys = sorted(set(a[k]) | set(b[k]))
                sub = next(x for x in keys if a[k].get(x) != b[k].get(x))
                detail = f"config.{sub}: {a[k].get(sub)!r} != {b[k].get(sub)!r}"
            else:
                detail = f"{k}: {a[k]!r} != {b[k]!r}"
            raise StoreError(f"{self.path}: run '{run.run_id}' exists with a different configuration ({detail}); "
                             f"pass --run-id NEW to start another run")
        return old

    def runs(self) -> list[dict[str, Any]]:
        rows = self._read(
            "SELECT r.*, COUNT(e.task_id) AS episodes, COALESCE(SUM(e.success), 0) AS successes, "
            "COALESCE(SUM(e.status IN ('error', 'crash', 'unsupported')), 0) AS errors "
            "FROM runs r LEFT JOIN episodes e ON e.run_id = r.run_id GROUP BY r.run_id ORDER BY r.created, r.run_id")
        return [dict(r) for r in rows]

    def match_runs(self, patterns: Iterable[str]) -> list[str]:
        """Run ids matching each pattern (exact id, or a glob with * and ?)."""
        out: list[str] = []
        for pat in patterns:
            rows = self._read("SELECT run_id FROM runs WHERE run_id GLOB ? ORDER BY created, run_id", (pat,))
            if not rows:
                raise StoreError(f"{self.path}: no run '{pat}' (runs: "
                                 f"{', '.join(r['run_id'] for r in self.runs()) or 'none'})")
            out.extend(r["run_id"] for r in rows if r["run_id"] not in out)
        return out

    # -- episodes
    def finished_keys(self, run_id: str, *, redo_statuses: Iterable[str] = ()) -> set[tuple[str, int]]:
        """(task_id, seed) of the run's episodes that a re-run skips."""
        redo = set(redo_statuses)
        rows = self._read("SELECT task_id, seed, status FROM episodes WHERE run_id = ?", (run_id,))
        return {(r["task_id"], int(r["seed"])) for r in rows if r["status"] not in redo}

    def _episode_columns(self) -> set[str]:
        if self._columns is None:
            self._columns = {r["name"] for r in self._read("PRAGMA table_info(episodes)")}
        return self._columns

    def _add_missing_columns(self) -> None:
        """Bring a file written by an older groundplan up to this schema before writing to it."""
        missing = [c for c in ADDED_COLUMNS if c not in self._episode_columns()]
        for col in missing:
            try:
                self.conn.execute(f"ALTER TABLE episodes ADD COLUMN {col} TEXT")
            except sqlite3.Error as exc:
                if "duplicate column" not in str(exc).lower():  # another writer added it first
                    raise StoreError(f"{self.path}: {_explain(exc)}") from None
        if missing:
            self._columns = None
            self._write("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    def write_episode(self, row: EpisodeRow) -> None:
        """Insert (or replace a re-attempted) episode in its own transaction."""
        self._add_missing_columns()
        cols = ("run_id", "task_id", "seed", "method", "dataset", "dataset_version", "subset", "backend", "model",
                "prompt_hash", "status", "success", "metrics", "llm_calls", "prompt_tokens", "completion_tokens",
                "wall_time", "goal", "plan", "error", "source", "trace", "finished", "instruction", "gold_goal")
        vals = (row.run_id, row.task_id, int(row.seed), row.method, row.dataset, row.dataset_version, row.subset,
                row.backend, row.model, row.prompt_hash, row.status, int(bool(row.success)),
                json.dumps(row.metrics, sort_keys=True), int(row.llm_calls), int(row.prompt_tokens),
                int(row.completion_tokens), float(row.wall_time), row.goal, json.dumps(list(row.plan)), row.error,
                row.source, json.dumps(list(row.trace)), row.finished or _now(), row.instruction or "",
                row.gold_goal)
        updates = ", ".join(f"{c} = excluded.{c}" for c in cols[3:])
        self._write(f"INSERT INTO episodes ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
                    f"ON CONFLICT (run_id, task_id, seed) DO UPDATE SET {updates}", vals)

    def episodes(self, run_ids: Iterable[str], *, with_trace: bool = False,
                 task_ids: Optional[Iterable[str]] = None) -> Iterator[EpisodeRow]:
        """The runs' episodes in (run, task, seed) order; ``task_ids``: only these tasks."""
        ids = list(run_ids)
        tasks = None if task_ids is None else sorted(set(task_ids))
        if not ids or tasks == []:
            return iter(())
        have = self._episode_columns()
        # a column an older file lacks reads as empty (NULL)
        cols = ", ".join(c if c in have else f"NULL AS {c}" for c in (
            *BASE_COLUMNS, *(("trace",) if with_trace else ()), *ADDED_COLUMNS))
        where = f"run_id IN ({', '.join('?' * len(ids))})"
        if tasks is not None:
            where += f" AND task_id IN ({', '.join('?' * len(tasks))})"
        rows = self._read(f"SELECT {cols} FROM episodes WHERE {where} ORDER BY run_id, task_id, seed",
                          ids + (tasks or []))
        return (EpisodeRow(r["run_id"], r["task_id"], int(r["seed"]), r["method"], r["dataset"], r["dataset_version"],
                           r["subset"], r["backend"], r["model"], r["prompt_hash"], r["status"], bool(r["success"]),
                           json.loads(r["metrics"]), int(r["llm_calls"]), int(r["prompt_tokens"]),
                           int(r["completion_tokens"]), float(r["wall_time"]), r["goal"], tuple(json.loads(r["plan"])),
                           r["error"], r["source"], tuple(json.loads(r["trace"])) if with_trace else (),
                           r["finished"], r["instruction"] or "", r["gold_goal"] or None) for r in rows)

    def task_ids(self, run_id: str) -> list[str]:
        """The run's task ids, in order (each once, whatever the seeds)."""
        return [r["task_id"] for r in self._read(
            "SELECT DISTINCT task_id FROM episodes WHERE run_id = ? ORDER BY task_id", (run_id,))]

    def count(self, run_id: str) -> int:
        return int(self._read("SELECT COUNT(*) AS n FROM episodes WHERE run_id = ?", (run_id,))[0]["n"])


__all__ = ["ResultStore", "RunRecord", "EpisodeRow", "StoreError", "SCHEMA_VERSION"]
