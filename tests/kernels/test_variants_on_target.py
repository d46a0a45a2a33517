"""Every kernel variant against its family's __ref, as firmware on each emulated board.

Builds tests/kernels/variants (variant_harness.h) in a targets/ cross build per board
(build/variants-<board>, configured once and reused; another root: $TINYFORGE_TARGETS_BUILD),
runs it under QEMU (targets/qemu/run.py) and checks the exit status and one summary line
per variant the board's ISA compiles in: scalar on every board, dsp on an386/an505/an547,
mve on an547. Skips without arm-none-eabi-gcc or qemu-system-arm.

Cases per variant: $TFV_TARGET_CASES (default 1000) random + the family's edge cases;
seed: $TFV_SEED.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tinyforge import board_catalog, qemu

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ROOT / "targets"
BUILD_ROOT = Path(os.environ.get("TINYFORGE_TARGETS_BUILD", ROOT / "build"))
BOARDS = ["an385", "an386", "an505", "an547"]
CASES = os.environ.get("TFV_TARGET_CASES", "1000")
SEED = os.environ.get("TFV_SEED", "0x7f4a7c15")


def _load_runner():
    return qemu


def _require(tool: str, package: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not found (Debian: apt-get install {package})")


def expected_variants(board: str) -> list[tuple[str, str]]:
    """(op, symbol) of every non-ref .inc line the board's ISA compiles in."""
    features = set(board_catalog.board(board)["features"])
    isas = {"scalar"} | ({"dsp"} if "dsp" in features else set()) | (
        {"mve"} if "mve" in features else set())
    out = []
    for inc in sorted((ROOT / "kernels").glob("*/*.inc")):
        for m in re.finditer(r"^\s*TF_KERNEL\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,",
                             inc.read_text(), re.M):
            op, symbol, isa = m.groups()
            if isa in isas:
                out.append((op, symbol))
    return out


def _build(board: str) -> Path:
    build = BUILD_ROOT / f"variants-{board}"
    if not (build / "CMakeCache.txt").exists():
        cfg = ["cmake", "-S", str(TARGETS), "-B", str(build), f"-DTINYFORGE_BOARD={board}",
               "-DTINYFORGE_FIRMWARE_DIRS=tests/kernels/variants",
               "-DTINYFORGE_TARGETS_TESTS=OFF"]
        if shutil.which("ninja"):
            cfg[1:1] = ["-G", "Ninja"]
        proc = subprocess.run(cfg, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = subprocess.run(["cmake", "--build", str(build), "-j2", "--target", "kernel_variants"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return build / "firmware" / "tests_kernels_variants" / "kernel_variants.elf"


@pytest.mark.parametrize("board", BOARDS)
def test_variants_on_board(board):
    _require("arm-none-eabi-gcc", "gcc-arm-none-eabi libnewlib-arm-none-eabi "
             "libstdc++-arm-none-eabi-newlib")
    _require("qemu-system-arm", "qemu-system-arm")
    _require("cmake", "cmake")
    elf = _build(board)
    run = _load_runner()
    result = run.run(elf, board=board, args=[SEED, CASES], timeout=100.0, plugin=None)
    out = result.stdout
    assert not result.timed_out, f"timed out after {result.seconds:.0f} s:\n{out}"
    assert result.exit_code == 0, f"exit {result.exit_code} {result.fault or ''}\n{out}"
    for op, symbol in expected_variants(board):
        assert re.search(rf"^{op} {symbol}: \d+ cases \+ \d+ edge cases ok$", out, re.M), (
            f"no passing summary line for {symbol} on {board}:\n{out}")
    assert "kernel variants: all ok" in out, out
