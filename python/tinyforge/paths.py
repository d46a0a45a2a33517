"""Where things are: the source tree, the `tinyforge` command, the board build trees.

The C++ CLI finds Python the same way in reverse (tools/tinyforge/python_env.h:
$TINYFORGE_PYTHON, the Python next to the `tinyforge` executable, the source tree's
.venv/bin/python, python3 from PATH) and sets TINYFORGE_BIN and TINYFORGE_ROOT for the
Python it starts, so both directions agree on one installation.
"""
from __future__ import annotations

import contextlib
import fcntl
import importlib.metadata
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from .errors import ErrorKind, TinyforgeError


def _has_data(root: Path) -> bool:
    return (root / "targets" / "boards").is_dir() and (root / "runtime").is_dir()


def _installed_root() -> Path | None:
    """share/tinyforge of a (non-editable) pip install: the wheel's data folder, installed
    into the environment beside its bin/ (CMakeLists.txt "Install"), found in the record of
    installed files."""
    try:
        dist = importlib.metadata.distribution("tinyforge")
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in dist.files or ():
        if f.as_posix().endswith("share/tinyforge/targets/cpus.json"):
            return Path(f.locate()).resolve().parents[1]
    return None


def repo_root() -> Path:
    """The folder with targets/, runtime/ and kernels/: $TINYFORGE_ROOT, else the source
    tree this package sits in (python/tinyforge/../..), else an installed share/tinyforge."""
    env = os.environ.get("TINYFORGE_ROOT")
    if env:
        root = Path(env)
    else:
        root = Path(__file__).resolve().parents[2]
        if not _has_data(root):
            root = _installed_root() or root
    if not _has_data(root):
        raise TinyforgeError(f"{root}: not a tinyforge source tree or installation (no "
                             "targets/boards, runtime/); set TINYFORGE_ROOT", ErrorKind.IO)
    return root


def is_source_tree(root: Path) -> bool:
    """A checkout (build/, .models/, docs/ live there), not an installed share/tinyforge."""
    return (root / "CMakeLists.txt").is_file() and (root / "python" / "tinyforge").is_dir()


def cmake_dir() -> Path:
    """The folder of the CMake package (tinyforgeConfig.cmake): give it to CMake as
    -Dtinyforge_DIR=... for find_package(tinyforge CONFIG) (docs/deploying.md)."""
    return repo_root() / "cmake"


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
    """Where the firmware build trees live: $TINYFORGE_BOARD_BUILD, else <repo>/build/boards
    (installed: $XDG_CACHE_HOME/tinyforge/boards, ~/.cache by default)."""
    env = os.environ.get("TINYFORGE_BOARD_BUILD")
    if env:
        return Path(env)
    root = repo_root()
    if is_source_tree(root):
        return root / "build" / "boards"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "tinyforge" / "boards"


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
