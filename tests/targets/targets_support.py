"""Helpers for the board-support tests (tests/targets): paths, board descriptions, the
runner module (tinyforge.qemu, also targets/qemu/run.py) and cross builds of the self-test
firmware.

Not named conftest: tests/e2e has a conftest too, and `from conftest import ...` would
resolve to whichever was imported last when both directories run in one session.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tinyforge import board_catalog
from tinyforge.paths import tree_lock
from tinyforge import qemu as runner  # noqa: F401  (conftest and the tests use it)

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ROOT / "targets"
BOARDS = board_catalog.emulated_names()  # the ones with firmware and QEMU
# Build trees: <BUILD_ROOT>/arm-<board> (firmware) and <BUILD_ROOT>/qemu-plugin, the same as
# the root Makefile's, so either reuses what the other built.
BUILD_ROOT = Path(os.environ.get("TINYFORGE_TARGETS_BUILD", ROOT / "build"))


def board_json(board: str) -> dict:
    return board_catalog.board(board)


def require(tool: str, package: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not found (Debian: apt-get install {package})")


def cmake(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["cmake", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def generator() -> list[str]:
    return ["-G", "Ninja"] if shutil.which("ninja") else []


class FirmwareBuild:
    """One configured build tree of targets/ for a board."""

    def __init__(self, board: str):
        self.board = board
        self.dir = BUILD_ROOT / f"arm-{board}"

    def configure_and_build(self) -> None:
        with tree_lock(self.dir):  # parallel test workers share the tree
            self._configure_and_build()

    def _configure_and_build(self) -> None:
        if not (self.dir / "CMakeCache.txt").exists():
            cfg = cmake("-S", str(TARGETS), "-B", str(self.dir), *generator(),
                         f"-DTINYFORGE_BOARD={self.board}")
            if cfg.returncode != 0:
                pytest.fail(f"configuring {self.board} failed:\n{cfg.stdout}\n{cfg.stderr}")
        build = cmake("--build", str(self.dir), "-j2")
        if build.returncode != 0:
            pytest.fail(f"building {self.board} failed:\n{build.stdout}\n{build.stderr}")

    def elf(self, name: str) -> Path:
        return self.dir / "tests" / f"{name}.elf"

    def build_target(self, target: str) -> subprocess.CompletedProcess:
        with tree_lock(self.dir):
            return cmake("--build", str(self.dir), "--target", target, "-j2")
