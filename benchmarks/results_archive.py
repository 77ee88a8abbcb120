"""Per-run result files packed into one archive per experiment folder.

A benchmark that writes one JSON file per run (``small_model_heldout.py``: ``LABEL@SET.json``)
or per episode keeps those files out of git: a results folder ``D`` of them is packed into
``D.tar.xz`` beside it (members ``D/<file>``), and the tracked results are the tables, plots and
summaries made from them. Scripts read a file under ``benchmarks/results`` through this module:
from disk when it is there (a run just made), else from the nearest enclosing folder's archive.

    .venv/bin/python benchmarks/results_archive.py list benchmarks/results/small_model/heldout
    .venv/bin/python benchmarks/results_archive.py pack benchmarks/results/small_model/heldout
    .venv/bin/python benchmarks/results_archive.py pack benchmarks/results/saycan --only '*.jsonl'

``pack`` adds the folder's files to its archive (a file of the same name replaces the packed
one) and then removes the packed files from the folder.

Imported by sibling scripts as ``import results_archive``: running ``python benchmarks/X.py``
puts ``benchmarks/`` first on ``sys.path``, so no path editing is needed.
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import json
import sys
import tarfile
from functools import lru_cache
from pathlib import Path


def archive_of(folder: Path) -> Path:
    """The archive of a results folder: ``D`` -> ``D.tar.xz``."""
    folder = Path(folder)
    return folder.with_name(folder.name + ".tar.xz")


@lru_cache(maxsize=8)
def _members(archive: Path, mtime: float) -> dict[str, bytes]:
    with tarfile.open(archive, "r:xz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def _archive_members(archive: Path) -> dict[str, bytes]:
    return _members(archive, archive.stat().st_mtime) if archive.is_file() else {}


def _packed(path: Path) -> bytes | None:
    """The bytes of ``path`` from the archive of the nearest enclosing folder that has one."""
    path = Path(path).resolve()
    for folder in path.parents:
        if not folder.name:
            break
        arc = archive_of(folder)
        if arc.is_file():
            data = _archive_members(arc).get(path.relative_to(folder.parent).as_posix())
            if data is not None:
                return data
    return None


def exists(path: Path) -> bool:
    """Whether ``path`` is on disk or packed in an enclosing folder's archive."""
    return Path(path).is_file() or _packed(path) is not None


def read_text(path: Path) -> str:
    """The text of ``path``, from disk or from the archive; FileNotFoundError names the path."""
    p = Path(path)
    if p.is_file():
        return p.read_text(encoding="utf-8")
    data = _packed(p)
    if data is None:
        raise FileNotFoundError(f"{p}: not on disk and not in {archive_of(p.parent).name}")
    return data.decode("utf-8")


def read_json(path: Path):
    return json.loads(read_text(path))


def names(folder: Path, pattern: str = "*") -> list[str]:
    """File names directly in ``folder`` matching ``pattern``: packed ones and those on disk."""
    folder = Path(folder).resolve()
    found = {n.split("/", 1)[1] for n in _archive_members(archive_of(folder)) if n.count("/") == 1}
    if folder.is_dir():
        found |= {p.name for p in folder.iterdir() if p.is_file()}
    return sorted(n for n in found if fnmatch.fnmatch(n, pattern))


def read_all_json(folder: Path, pattern: str = "*.json") -> dict[str, object]:
    """``{file name: parsed JSON}`` for every file of ``folder`` matching ``pattern`` (disk wins)."""
    return {n: read_json(Path(folder) / n) for n in names(folder, pattern)}


def pack(folder: Path, only: str = "*") -> tuple[Path, int]:
    """Merge ``folder``'s files (recursively; those whose name matches ``only``) into its archive
    and remove them, and the folder when it is left empty; -> (archive, files added)."""
    folder = Path(folder).resolve()
    arc = archive_of(folder)
    files = dict(_archive_members(arc))
    added = [p for p in sorted(folder.rglob("*")) if p.is_file() and fnmatch.fnmatch(p.name, only)] \
        if folder.is_dir() else []
    for p in added:
        files[p.relative_to(folder.parent).as_posix()] = p.read_bytes()
    tmp = arc.with_name(arc.name + ".tmp")
    with tarfile.open(tmp, "w:xz", preset=9) as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(files[name]), 0, 0o644
            tar.addfile(info, io.BytesIO(files[name]))
    tmp.replace(arc)
    for p in added:
        p.unlink()
    for d in sorted((d for d in folder.rglob("*") if d.is_dir()), reverse=True) if folder.is_dir() else ():
        if not any(d.iterdir()):
            d.rmdir()
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    return arc, len(added)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cmd", choices=["list", "pack"])
    ap.add_argument("folder", type=Path, help="a results folder (its archive is FOLDER.tar.xz)")
    ap.add_argument("--only", default="*", metavar="PATTERN", help="pack only the files matching PATTERN "
                    "(e.g. '*.jsonl': the per-episode records, leaving the tables)")
    a = ap.parse_args()
    if a.cmd == "list":
        if not a.folder.is_dir() and not archive_of(a.folder).is_file():
            print(f"error: {a.folder}: no such folder and no {archive_of(a.folder).name}", file=sys.stderr)
            return 2
        for n in names(a.folder):
            print(n)
        return 0
    if not a.folder.is_dir():
        print(f"error: {a.folder}: no such folder", file=sys.stderr)
        return 2
    arc, n = pack(a.folder, a.only)
    print(f"{arc}: {n} files added, {len(_archive_members(arc))} in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
