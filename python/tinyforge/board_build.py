"""Compiled models and their firmware: `tinyforge compile --target` output as the board
driver reads it (model.h, report.json), and the cached firmware build tree per board.

Firmware build trees are cached per board in <repo>/build/boards/<board>
($TINYFORGE_BOARD_BUILD/<board>): configured once; the compiled model is written to the
tree's model/ directory (files rewritten only when their content changed), so between models
only model.cc recompiles and the firmware relinks.
"""
from __future__ import annotations

import dataclasses
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from .errors import BoardError, ErrorKind, kind_of_exit
from .paths import build_root, find_cli, repo_root, tree_lock

BUILD_TIMEOUT = 1800.0
MODEL_FILES = ("model.h", "model.cc", "program.bin", "report.json")


def step(message: str) -> None:
    """A progress line on stderr."""
    print(f"board: {message}", file=sys.stderr, flush=True)


def require_tools() -> None:
    for tool, package in (("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
                          ("qemu-system-arm", "qemu-system-arm"), ("cmake", "cmake"),
                          ("ninja", "ninja-build")):
        if shutil.which(tool) is None:
            raise BoardError(f"{tool} not found (Debian: apt-get install {package})", ErrorKind.IO)


# ---- model I/O as model.h declares it ------------------------------------------------------
@dataclasses.dataclass
class TensorSpec:
    index: int
    dtype: np.dtype
    shape: tuple[int, ...]
    scale: float | None
    zero_point: int | None

    @property
    def bytes(self) -> int:
        return int(np.prod(self.shape)) * self.dtype.itemsize

    def describe(self) -> str:
        return f"{self.dtype.name}[{','.join(map(str, self.shape))}]"


_IO_LINE = re.compile(r"\*\s+(Input|Output)\s+(\d+):\s+(int8|int32|float32)\[([\d,]*)\]"
                      r"(?:, scale ([-+\deE.naif]+), zero point (-?\d+))?")
_DTYPES = {"int8": np.dtype(np.int8), "int32": np.dtype("<i4"), "float32": np.dtype("<f4")}
_STATE_LINE = re.compile(r"\*\s+State:\s+input (\d+) <- output (\d+)")


@dataclasses.dataclass
class CompiledModel:
    dir: Path
    name: str  # <name> of tf_model_<name>
    board: str
    inputs: list[TensorSpec]  # what the caller writes: the state inputs left out
    outputs: list[TensorSpec]
    report: dict
    # (input, output) index pairs of a streaming model's state (docs/program-format.md):
    # the firmware reads no bytes for those inputs and runs its samples as one sequence
    state: list[tuple[int, int]] = dataclasses.field(default_factory=list)


def read_compiled(model_dir: Path) -> CompiledModel:
    missing = [f for f in MODEL_FILES if not (model_dir / f).is_file()]
    if missing:
        raise BoardError(f"{model_dir}: missing {', '.join(missing)} (write it with "
                         "`tinyforge compile --target BOARD -o DIR`)", ErrorKind.INVALID_INPUT)
    header = (model_dir / "model.h").read_text()
    m = re.search(r"extern const tf_model_def tf_model_(\w+);", header)
    if m is None:
        raise BoardError(f"{model_dir / 'model.h'}: no tf_model_def declaration", ErrorKind.INVALID_INPUT)
    specs: dict[str, list[TensorSpec]] = {"Input": [], "Output": []}
    for kind, idx, dtype, dims, scale, zp in _IO_LINE.findall(header):
        shape = tuple(int(d) for d in dims.split(",") if d)
        specs[kind].append(TensorSpec(int(idx), _DTYPES[dtype], shape,
                                      float(scale) if scale else None,
                                      int(zp) if zp else None))
    report = json.loads((model_dir / "report.json").read_text())
    state = [(int(i), int(o)) for i, o in _STATE_LINE.findall(header)]
    state_inputs = {i for i, _ in state}
    return CompiledModel(model_dir, m.group(1), report["target"]["board"],
                         [s for s in specs["Input"] if s.index not in state_inputs],
                         specs["Output"], report, state)


def cli(*args, timeout: float = 600.0) -> subprocess.CompletedProcess:
    return subprocess.run([find_cli(), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def _sync_dir(src: Path, dst: Path) -> None:
    """Copies the model files whose content changed (unchanged ones keep their mtime)."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        s, d = src / name, dst / name
        if not d.is_file() or not filecmp.cmp(s, d, shallow=False):
            shutil.copyfile(s, d)


def compile_for_board(model: str | os.PathLike, board: str, dest: Path,
                      compile_args: list[str] | tuple = ()) -> CompiledModel:
    """`tinyforge compile MODEL --target BOARD -o dest [compile_args]` (a compiled directory
    is copied)."""
    model = Path(model)
    if not model.exists():
        raise BoardError(f"{model}: no such file", ErrorKind.INVALID_INPUT)
    with tempfile.TemporaryDirectory(prefix="tf-board-compile-") as tmp:
        if model.is_dir():
            src = model
            compiled = read_compiled(src)
            if compiled.board != board:
                raise BoardError(f"{model} was compiled for {compiled.board}, not {board}",
                                 ErrorKind.INVALID_INPUT)
        else:
            step(f"compile {model} --target {board}")
            proc = cli("compile", model, "--target", board, "-o", tmp, *compile_args)
            if proc.returncode != 0:
                raise BoardError(f"tinyforge compile {model} --target {board} failed:\n"
                                 f"{(proc.stderr or proc.stdout).strip()}",
                                 kind_of_exit(proc.returncode))
            src = Path(tmp)
        _sync_dir(src, dest)
    return read_compiled(dest)


# ---- firmware build ----------------------------------------------------------------------
class BoardTree:
    """The cached cross build for one board: <build_root>/<board>, model in model/."""

    def __init__(self, board: str):
        self.board = board
        self.dir = build_root() / board
        self.model_dir = self.dir / "model"
        self.elf = self.dir / "firmware" / "runtime_firmware" / "model_runner.elf"
        self._lock = None

    def __enter__(self) -> "BoardTree":
        self._lock = tree_lock(self.dir)  # one driver per tree at a time
        self._lock.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._lock.__exit__(*exc)

    def _cached(self) -> dict[str, str]:
        cache = self.dir / "CMakeCache.txt"
        if not cache.is_file():
            return {}
        out = {}
        for line in cache.read_text().splitlines():
            m = re.match(r"^(\w+):\w+=(.*)$", line)
            if m:
                out[m.group(1)] = m.group(2)
        return out

    def build(self, compiled: CompiledModel) -> Path:
        root = repo_root()
        cached = self._cached()
        want = {"TINYFORGE_BOARD": self.board, "TINYFORGE_FIRMWARE_DIRS": "runtime/firmware",
                "TF_MODEL_DIR": str(self.model_dir), "TF_MODEL_NAME": compiled.name,
                "TINYFORGE_TARGETS_TESTS": "OFF"}
        if cached.get("CMAKE_HOME_DIRECTORY") not in (None, str(root / "targets")):
            shutil.rmtree(self.dir / "CMakeFiles", ignore_errors=True)
            (self.dir / "CMakeCache.txt").unlink()
            cached = {}
        if any(cached.get(k) != v for k, v in want.items()):
            step(f"configure {self.dir}" + ("" if cached else " (first build for this board)"))
            cmd = ["cmake", "-S", str(root / "targets"), "-B", str(self.dir)]
            if not cached:
                cmd += ["-G", "Ninja"]
            cmd += [f"-D{k}={v}" for k, v in want.items()]
            self._tool(cmd, "configure")
        step(f"build firmware ({self.dir})")
        self._tool(["cmake", "--build", str(self.dir), "-j2", "--target", "model_runner"], "build")
        return self.elf

    @staticmethod
    def _tool(cmd: list[str], what: str) -> None:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise BoardError(f"firmware {what} timed out after {BUILD_TIMEOUT:.0f} s") from None
        if proc.returncode != 0:
            log = (proc.stdout + proc.stderr).strip().splitlines()
            errors = [l for l in log if re.search(r"error:|Error |FAILED:|CMake Error", l)] or log
            raise BoardError(f"firmware {what} failed ({' '.join(cmd[:3])} ...):\n  " +
                             "\n  ".join(errors[-15:]))
