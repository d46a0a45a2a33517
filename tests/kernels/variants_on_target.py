"""Every kernel variant against its family's __ref, as firmware on each emulated board: the
shared part of tests/kernels/test_variants_on_<board>.py (one file per board, so that
pytest-xdist's --dist loadfile runs the four firmware builds on different workers).

Builds tests/kernels/variants (variant_harness.h) in a targets/ cross build per board
(build/variants-<board>, configured once and reused; another root: $TINYFORGE_TARGETS_BUILD),
runs it once per board under QEMU (targets/qemu/run.py) and reports one test per
(board, variant, kind): `test_variant_on_board[an547-s8_conv__mve-3x3_same]` checks that
firmware's line "conv s8_conv__mve 3x3_same: N cases ok" (kind: "random" or the family's edge
kind). The (variant, kind) list is the host build's `kernel_variants --list-all` (every .inc
line of the board's ISAs: scalar on every board, dsp on an386/an505/an547, mve on an547);
test_board_run_ok checks the run as a whole (exit status, no untested variant). Without
arm-none-eabi-gcc or qemu-system-arm the tests skip (a failure in CI: conftest.py).

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
from tinyforge.paths import tree_lock

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


def board_isas(board: str) -> set[str]:
    """The ISAs whose variants the board's firmware compiles in. (An MVE board's leaves out
    the scalar ones, tested on the host, the an385, an386 and an505: every variant no longer
    fits the an547's 512 KiB ITCM; variant_main.cc.)"""
    features = set(board_catalog.board(board)["features"])
    return ({"scalar"} if "mve" not in features else set()) | (
        {"dsp"} if "dsp" in features else set()) | ({"mve"} if "mve" in features else set())


HOST_LISTER = ROOT / "build" / "tests" / "kernels" / "variants" / "kernel_variants"


def _cases(boards: list[str]) -> list:
    """(board, op, symbol, kind) for every variant the board compiles in and every kind of
    its family's cases, from the host build's `kernel_variants --list-all`."""
    if not HOST_LISTER.is_file():
        return [pytest.param(b, None, None, None, id=f"{b}-kernel_variants-not-built")
                for b in boards]
    proc = subprocess.run([str(HOST_LISTER), "--list-all"], capture_output=True, text=True,
                          timeout=60)
    rows = [line.split() for line in proc.stdout.splitlines() if line.strip()]
    params = []
    for board in boards:
        isas = board_isas(board)
        params += [pytest.param(board, op, symbol, kind, id=f"{board}-{symbol}-{kind}")
                   for op, symbol, isa, kind in rows if isa in isas]
    return params


def _build(board: str) -> Path:
    build = BUILD_ROOT / f"variants-{board}"
    with tree_lock(build):  # parallel test workers share the tree
        return _configure_and_build(board, build)


def _configure_and_build(board: str, build: Path) -> Path:
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


_RUNS: dict = {}


def _board_run(board: str):
    """The firmware's run on `board` (built and run once per session)."""
    if board not in _RUNS:
        _require("arm-none-eabi-gcc", "gcc-arm-none-eabi libnewlib-arm-none-eabi "
                 "libstdc++-arm-none-eabi-newlib")
        _require("qemu-system-arm", "qemu-system-arm")
        _require("cmake", "cmake")
        elf = _build(board)
        _RUNS[board] = _load_runner().run(elf, board=board, args=[SEED, CASES], timeout=100.0,
                                          plugin=None)
    return _RUNS[board]


def board_tests(board: str):
    """One board's three tests, for its file's namespace: each (variant, kind) line of the
    run, the run as a whole, and the firmware's RAM copy list."""
    assert board in BOARDS, board

    @pytest.mark.parametrize("board,op,symbol,kind", _cases([board]))
    def test_variant_on_board(board, op, symbol, kind):
        if symbol is None:
            pytest.fail(f"{HOST_LISTER} not built (make build): it lists the variants and kinds")
        result = _board_run(board)
        out = result.stdout
        line = re.search(rf"^{op} {symbol} {re.escape(kind)}: (.*)$", out, re.M)
        ended = ("timed out" if result.timed_out
                 else f"exit {result.exit_code} {result.fault or ''}")
        assert line, f"no line for {symbol} {kind} on {board} (the run ended: {ended}):\n{out}"
        fails = "\n".join(f for f in re.findall(
            rf"^FAIL {op} {symbol} {re.escape(kind)} .*\n.*$", out, re.M))
        assert re.fullmatch(r"\d+ cases ok", line.group(1)), f"{line.group(0)}\n{fails}"

    def test_board_run_ok():
        """The run as a whole: exit 0, every compiled-in variant covered by a family test."""
        result = _board_run(board)
        out = result.stdout
        assert not result.timed_out, f"timed out after {result.seconds:.0f} s:\n{out}"
        assert result.exit_code == 0, f"exit {result.exit_code} {result.fault or ''}\n{out}"
        assert "UNTESTED" not in out, out
        assert "kernel variants: all ok" in out, out

    def test_firmware_copies_every_initialized_ram_section():
        """The kernels are position-independent: the firmware's GOT must be among what the
        startup copies to RAM (an indirect call through a zeroed GOT jumps to address 0)."""
        from tinyforge import board_flash
        _board_run(board)
        assert board_flash.uncopied_ram_sections(_build(board)) == []

    return test_variant_on_board, test_board_run_ok, test_firmware_copies_every_initialized_ram_section
