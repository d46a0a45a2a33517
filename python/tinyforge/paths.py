"""Where things are: the source tree, the `tinyforge` command, the board build trees.

The C++ CLI finds Python the same way in reverse (tools/tinyforge/python_env.h:
$TINYFORGE_PYTHON, the Python next to the `tinyforge` executable, the source tree's
.venv/bin/python, python3 from PATH) and sets TINYFORGE_BIN and TINYFORGE_ROOT for the
Python it starts, so both directions agree on one installation.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from .errors import ErrorKind, TinyforgeError


def repo_root() -> Path:
    """$TINYFORGE_ROOT, else the source tree this package sits in (python/tinyforge/../..)."""
    env = os.environ.get("TINYFORGE_ROOT")
    root = Path(env) if env else Path(__file__).resolve().parents[2]
    if not (root / "targets" / "boards").is_dir() or not (root / "runtime").is_dir():
        raise TinyforgeError(f"{root}: not a tinyforge source tree (no targets/boards, "
                             "runtime/); set TINYFORGE_ROOT", ErrorKind.IO)
    return root


def find_cli() -> str:
    """$TINYFORGE_BIN, else `tinyforge` next to this Python, else on PATH, else build/."""
    env = os.environ.get("TINYFORGE_BIN")
    if env:
        return env
    cand = Path(sys.executable).parent / "tinyforge"
    if cand.is_file():
        return str(cand)
    found = shutil.which("tinyforge")
    if found:
        return found
    built = repo_root() / "build" / "tools" / "tinyforge" / "tinyforge"
    if built.is_file():
        return str(built)
    raise TinyforgeError("the tinyforge command was not found (run `make build`, or set "
                         "TINYFORGE_BIN)", ErrorKind.IO)


def build_root() -> Path:
    """Where the firmware build trees live: $TINYFORGE_BOARD_BUILD, else <repo>/build/boards."""
    env = os.environ.get("TINYFORGE_BOARD_BUILD")
    return Path(env) if env else repo_root() / "build" / "boards"


@contextlib.contextmanager
def tree_lock(tree: Path) -> Iterator[Path]:
    """Holds an exclusive lock on build tree `tree` (created if missing) for the block: one
    configure/build at a time per tree, across processes (parallel test workers, two
    `tinyforge run --board` at once)."""
    tree.mkdir(parents=True, exist_ok=True)
    with open(tree / ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield tree
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
