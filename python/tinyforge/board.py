"""Run and profile compiled models on the emulated Cortex-M boards (docs/boards.md).

    python -m tinyforge.board run MODEL --board BOARD [--input x.npy]... [--output y.npy]...
                                        [--seed N] [--timeout S] [--json]
    python -m tinyforge.board profile MODEL --board BOARD [--input x.npy]... [--json]

`tinyforge run MODEL --board B` and `tinyforge profile MODEL --board B` exec this module.
MODEL is a graph file (.tfg: float, qdq or lowered; .tflite), or a directory written by
`tinyforge compile --target B -o DIR` (model.h, model.cc, program.bin, report.json). BOARD is
a board (an385, an386, an505, an547) or the CPU one carries (cortex-m3, cortex-m4,
cortex-m33, cortex-m55).

`run`: compiles MODEL for the board (tinyforge compile --target), builds the firmware
(runtime/firmware/model_runner.cc + the generated model.cc, cross build of targets/), runs it
under qemu-system-arm (targets/qemu/run.py) and checks its outputs bit for bit against the
host runtime running the same program.bin (`tinyforge run program.bin`). On a mismatch it
re-runs the failing sample with every op's output dumped, on the board and on the host, and
names the first op whose output differs. An input .npy may stack N samples ([N, *shape],
[N, *shape[1:]] when the model's batch is 1, or N * elements flat): one boot, N inferences.

`profile`: per op instructions (the tf_insncount QEMU plugin, one event per op), MACs and
kernel (report.json); instructions per inference, stack high-water, RAM per region, flash
split by where it comes from (the linker map). QEMU runs with -icount: figures repeat exactly.

Firmware build trees are cached per board in <repo>/build/boards/<board>
($TINYFORGE_BOARD_BUILD/<board>): configured once; the compiled model is written to the
tree's model/ directory (files rewritten only when their content changed), so between models
only model.cc recompiles and the firmware relinks.

Exit codes: 0 ok, 1 failure (build failure, firmware fault, timeout, mismatch with the host),
2 invalid input (bad model, wrong input size, unknown board, bad command line).

Python:
    from tinyforge import board
    outputs = board.run("kws.tfg", "an547", [x])       # list of arrays; raises BoardError
    prof = board.profile("kws.tfg", "cortex-m55")      # dict, as `profile --json` prints
"""
from __future__ import annotations

import argparse
import dataclasses
import fcntl
import filecmp
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

EXIT_OK, EXIT_FAILURE, EXIT_INVALID = 0, 1, 2
BUILD_TIMEOUT = 1800.0
RUN_TIMEOUT = 120.0
MODEL_FILES = ("model.h", "model.cc", "program.bin", "report.json")


class BoardError(Exception):
    """A run or profile that could not be done; `exit_code` is what the CLI exits with."""

    def __init__(self, message: str, exit_code: int = EXIT_FAILURE):
        super().__init__(message)
        self.exit_code = exit_code


def _step(message: str) -> None:
    print(f"board: {message}", file=sys.stderr, flush=True)


# ---- locations ---------------------------------------------------------------------------
def repo_root() -> Path:
    """$TINYFORGE_ROOT, else the source tree this package sits in (python/tinyforge/../..)."""
    env = os.environ.get("TINYFORGE_ROOT")
    root = Path(env) if env else Path(__file__).resolve().parents[2]
    if not (root / "targets" / "boards").is_dir() or not (root / "runtime").is_dir():
        raise BoardError(f"{root}: not a tinyforge source tree (no targets/boards, runtime/); "
                         "set TINYFORGE_ROOT")
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
    raise BoardError("the tinyforge command was not found (run `make build`, or set TINYFORGE_BIN)")


def build_root() -> Path:
    env = os.environ.get("TINYFORGE_BOARD_BUILD")
    return Path(env) if env else repo_root() / "build" / "boards"


def _run_py():
    """targets/qemu/run.py as a module (stdlib only)."""
    qemu_dir = str(repo_root() / "targets" / "qemu")
    if qemu_dir not in sys.path:
        sys.path.insert(0, qemu_dir)
    import run as run_py  # noqa: E402  (targets/qemu/run.py)
    return run_py


# ---- boards ------------------------------------------------------------------------------
def boards() -> dict[str, dict]:
    out = {}
    for path in sorted((repo_root() / "targets" / "boards").glob("*/board.json")):
        out[path.parent.name] = json.loads(path.read_text())
    return out


def resolve_board(name: str) -> str:
    """A board name, or the CPU of exactly one board (as `compile --target` maps them)."""
    known = boards()
    if name in known:
        return name
    by_cpu = [b for b, j in known.items() if j.get("cpu") == name.lower()]
    if len(by_cpu) == 1:
        return by_cpu[0]
    listing = ", ".join(f"{b} ({j.get('cpu')})" for b, j in known.items())
    raise BoardError(f"unknown board '{name}' (known: {listing})", EXIT_INVALID)


def _require_tools() -> None:
    for tool, package in (("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
                          ("qemu-system-arm", "qemu-system-arm"), ("cmake", "cmake"),
                          ("ninja", "ninja-build")):
        if shutil.which(tool) is None:
            raise BoardError(f"{tool} not found (Debian: apt-get install {package})")


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


@dataclasses.dataclass
class CompiledModel:
    dir: Path
    name: str  # <name> of tf_model_<name>
    board: str
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    report: dict


def read_compiled(model_dir: Path) -> CompiledModel:
    missing = [f for f in MODEL_FILES if not (model_dir / f).is_file()]
    if missing:
        raise BoardError(f"{model_dir}: missing {', '.join(missing)} (write it with "
                         "`tinyforge compile --target BOARD -o DIR`)", EXIT_INVALID)
    header = (model_dir / "model.h").read_text()
    m = re.search(r"extern const tf_model_def tf_model_(\w+);", header)
    if m is None:
        raise BoardError(f"{model_dir / 'model.h'}: no tf_model_def declaration", EXIT_INVALID)
    specs: dict[str, list[TensorSpec]] = {"Input": [], "Output": []}
    for kind, idx, dtype, dims, scale, zp in _IO_LINE.findall(header):
        shape = tuple(int(d) for d in dims.split(",") if d)
        specs[kind].append(TensorSpec(int(idx), _DTYPES[dtype], shape,
                                      float(scale) if scale else None,
                                      int(zp) if zp else None))
    report = json.loads((model_dir / "report.json").read_text())
    return CompiledModel(model_dir, m.group(1), report["target"]["board"], specs["Input"],
                         specs["Output"], report)


def _cli(*args, timeout: float = 600.0) -> subprocess.CompletedProcess:
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
        raise BoardError(f"{model}: no such file", EXIT_INVALID)
    with tempfile.TemporaryDirectory(prefix="tf-board-compile-") as tmp:
        if model.is_dir():
            src = model
            compiled = read_compiled(src)
            if compiled.board != board:
                raise BoardError(f"{model} was compiled for {compiled.board}, not {board}",
                                 EXIT_INVALID)
        else:
            _step(f"compile {model} --target {board}")
            proc = _cli("compile", model, "--target", board, "-o", tmp, *compile_args)
            if proc.returncode != 0:
                raise BoardError(f"tinyforge compile {model} --target {board} failed:\n"
                                 f"{(proc.stderr or proc.stdout).strip()}",
                                 EXIT_INVALID if proc.returncode == 2 else EXIT_FAILURE)
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
        self.dir.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.dir / ".lock", "w")
        fcntl.flock(self._lock, fcntl.LOCK_EX)  # one driver per tree at a time
        return self

    def __exit__(self, *exc) -> None:
        fcntl.flock(self._lock, fcntl.LOCK_UN)
        self._lock.close()

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
            _step(f"configure {self.dir}" + ("" if cached else " (first build for this board)"))
            cmd = ["cmake", "-S", str(root / "targets"), "-B", str(self.dir)]
            if not cached:
                cmd += ["-G", "Ninja"]
            cmd += [f"-D{k}={v}" for k, v in want.items()]
            self._tool(cmd, "configure")
        _step(f"build firmware ({self.dir})")
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


def _prepare(model, board: str, tree: BoardTree, inputs, seed: int, compile_args=()
             ) -> tuple[CompiledModel, list[np.ndarray], "Stacked", Path]:
    """Compile, check the inputs against the program (before building), build."""
    _require_tools()
    compiled = compile_for_board(model, board, tree.model_dir, compile_args)
    arrays, st = _load_inputs(compiled, inputs, seed)
    return compiled, arrays, st, tree.build(compiled)


# ---- inputs ------------------------------------------------------------------------------
@dataclasses.dataclass
class Stacked:
    samples: int
    layout: str  # "single", "prepend" ([N, *shape]), "batch" ([N, *shape[1:]]), "flat"


def _stack_input(spec: TensorSpec, x: np.ndarray, what: str) -> tuple[np.ndarray, Stacked]:
    """x as [N, *spec.shape] and how it was stacked; BoardError(2) if it does not fit."""
    shape, elems = tuple(spec.shape), int(np.prod(spec.shape))
    if x.dtype != spec.dtype:
        raise BoardError(f"{what}: dtype {x.dtype.name}, the program's input {spec.index} is "
                         f"{spec.describe()}" + (f" (scale {spec.scale}, zero point "
                                                 f"{spec.zero_point})" if spec.scale else ""),
                         EXIT_INVALID)
    if x.shape == shape:
        st = Stacked(1, "single")
    elif x.ndim == len(shape) + 1 and x.shape[1:] == shape and x.shape[0] > 0:
        st = Stacked(x.shape[0], "prepend")
    elif len(shape) > 1 and shape[0] == 1 and x.ndim == len(shape) and \
            x.shape[1:] == shape[1:] and x.shape[0] > 0:
        st = Stacked(x.shape[0], "batch")
    elif x.ndim == 1 and x.size > 0 and x.size % elems == 0:
        st = Stacked(x.size // elems, "flat")
    else:
        raise BoardError(
            f"{what}: shape {list(x.shape)} ({x.size} elements) does not fit the program's "
            f"input {spec.index}, {spec.describe()} ({elems} elements): give one sample "
            f"{list(shape)}, or N stacked as [N,{','.join(map(str, shape))}]"
            + (f", [N,{','.join(map(str, shape[1:]))}]" if len(shape) > 1 and shape[0] == 1
               else "") + f" or N*{elems} elements flat", EXIT_INVALID)
    return np.ascontiguousarray(x).reshape((st.samples, *shape)), st


def _unstack_output(spec: TensorSpec, y: np.ndarray, st: Stacked) -> np.ndarray:
    """y [N, *shape] stacked the way the input was."""
    if st.layout == "single":
        return y.reshape(spec.shape)
    if st.layout == "batch" and len(spec.shape) > 1 and spec.shape[0] == 1:
        return y.reshape((st.samples, *spec.shape[1:]))
    return y


def random_inputs(compiled: CompiledModel, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for spec in compiled.inputs:
        if spec.dtype.kind == "f":
            out.append(rng.standard_normal(spec.shape).astype(spec.dtype))
        else:
            info = np.iinfo(spec.dtype)
            lo, hi = max(info.min, -128), min(info.max, 127)
            out.append(rng.integers(lo, hi + 1, size=spec.shape, dtype=spec.dtype))
    return out


# ---- running -----------------------------------------------------------------------------
def _firmware(elf: Path, board: str, args: list[str], cwd: Path, *, timeout: float,
              ops: list[dict] | None = None):
    """Runs the firmware (per-op events on); BoardError unless it exited 0."""
    _step(f"run on {board} ({boards()[board]['qemu']['machine']}, QEMU)")
    run_py = _run_py()
    try:
        r = run_py.run(elf, board=board, args=args, timeout=timeout, events=True, cwd=cwd)
    except run_py.RunError as e:
        raise BoardError(str(e)) from None
    if r.timed_out:
        where = ""
        if r.perf is not None and 1 in r.perf.open:  # markers on: the op still running
            k = sum(1 for e in r.perf.events if e.region == 1)
            name = f" '{ops[k]['name']}' ({ops[k]['kernel']})" if ops and k < len(ops) else ""
            where = f", in op #{k}{name} of the first sample"
        raise BoardError(f"firmware timed out after {timeout:g} s on {board}{where}")
    if r.fault:
        raise BoardError(f"firmware fault on {board}: {r.fault}")
    if r.exit_code != 0:
        text = (r.stdout.strip() or r.stderr.strip() or "(no output)")
        kind = {3: "the program failed validation", 2: "bad input"}.get(r.exit_code, "failed")
        raise BoardError(f"firmware on {board}: {kind} (exit {r.exit_code}): {text}")
    return r


def _host_run(program: Path, inputs: list[np.ndarray], num_outputs: int, tmp: Path, tag: str,
              dump_dir: Path | None = None) -> list[np.ndarray]:
    """`tinyforge run program.bin -i ... -o ...`: the host runtime on one sample."""
    args: list = ["run", program]
    for i, x in enumerate(inputs):
        p = tmp / f"{tag}_in{i}.npy"
        np.save(p, x)
        args += ["-i", p]
    outs = [tmp / f"{tag}_out{i}.npy" for i in range(num_outputs)]
    for p in outs:
        args += ["-o", p]
    if dump_dir is not None:
        args += ["--dump-dir", dump_dir]
    proc = _cli(*args)
    if proc.returncode != 0:
        raise BoardError(f"host run of {program} failed: {(proc.stderr or proc.stdout).strip()}")
    return [np.load(p) for p in outs]


def _op_outputs(report: dict) -> dict[int, list[dict]]:
    """Per op, the buffers it defines (its outputs), without its scratch and line buffers."""
    ops = {o["index"]: o["name"] for o in report["ops"]}
    out: dict[int, list[dict]] = {k: [] for k in ops}
    for b in report.get("buffers", []):
        k = b["first_op"]
        if k in ops and b["name"] not in (ops[k] + ".scratch", ops[k] + ".line"):
            out[k].append(b)
    return out


def first_difference(compiled: CompiledModel, board_dump: Path, host_dump: Path) -> dict | None:
    """The first op whose output bytes differ between two arena dumps (model_runner dump
    mode / `tinyforge run program.bin --dump-dir`), or None."""
    regions = [r["region"] for r in _program_regions(compiled)]
    for k, bufs in sorted(_op_outputs(compiled.report).items()):
        for b in bufs:
            j = regions.index(b["region"]) if b["region"] in regions else None
            if j is None:
                continue
            a = (board_dump / f"{k:03d}_{j}.bin").read_bytes()
            h = (host_dump / f"{k:03d}_{j}.bin").read_bytes()
            lo, hi = b["offset"], b["offset"] + b["bytes"]
            if a[lo:hi] != h[lo:hi]:
                diff = np.flatnonzero(np.frombuffer(a[lo:hi], np.uint8) !=
                                      np.frombuffer(h[lo:hi], np.uint8))
                op = compiled.report["ops"][k]
                return {"op": k, "name": op["name"], "type": op["type"], "kernel": op["kernel"],
                        "buffer": b["name"], "bytes_differing": int(diff.size),
                        "first_byte": int(diff[0])}
    return None


def _program_regions(compiled: CompiledModel) -> list[dict]:
    """The program's arenas, in the order of model.cc's kArenas (= the dump's index j)."""
    text = (compiled.dir / "model.cc").read_text()
    m = re.search(r"const tf_arena kArenas\[\] = \{(.*?)\};", text, re.S)
    names = re.findall(r"\{\s*g_arena_(\w+)\s*,", m.group(1)) if m else []
    return [{"region": n} for n in names]


@dataclasses.dataclass
class RunOutcome:
    board: str
    model: str
    samples: int
    outputs: list[np.ndarray]  # stacked like the inputs
    host_outputs: list[np.ndarray]
    bit_exact: bool
    mismatch: dict | None  # first differing op (sample, op, name, kernel, ...)
    stack_bytes: int | None
    seconds: dict

    def to_json(self) -> dict:
        return {"board": self.board, "model": self.model, "samples": self.samples,
                "bit_exact": self.bit_exact, "mismatch": self.mismatch,
                "stack_bytes": self.stack_bytes, "seconds": self.seconds,
                "outputs": [_value_summary(y) for y in self.outputs]}


def _value_summary(y: np.ndarray) -> dict:
    flat = y.reshape(y.shape[0] if y.ndim > 1 else 1, -1)
    return {"shape": list(y.shape), "dtype": y.dtype.name, "min": y.min().item(),
            "max": y.max().item(), "argmax": [int(a) for a in flat.argmax(axis=1)]}


def _load_inputs(compiled: CompiledModel, inputs, seed: int) -> tuple[list[np.ndarray], Stacked]:
    if inputs is None or len(inputs) == 0:
        inputs = random_inputs(compiled, seed)
        _step(f"input: seeded random (seed {seed})")
    if len(inputs) != len(compiled.inputs):
        raise BoardError(f"the program has {len(compiled.inputs)} input(s), got {len(inputs)}",
                         EXIT_INVALID)
    arrays, stacks = [], []
    for spec, x in zip(compiled.inputs, inputs):
        what = str(x) if isinstance(x, (str, os.PathLike)) else f"input {spec.index}"
        if isinstance(x, (str, os.PathLike)):
            try:
                x = np.load(x, allow_pickle=False)
            except (OSError, ValueError) as e:
                raise BoardError(f"{what}: cannot read .npy: {e}", EXIT_INVALID) from None
        arr, st = _stack_input(spec, np.asarray(x), what)
        arrays.append(arr)
        stacks.append(st)
    if len({s.samples for s in stacks}) != 1:
        raise BoardError("the inputs stack different numbers of samples: "
                         + ", ".join(str(s.samples) for s in stacks), EXIT_INVALID)
    return arrays, stacks[0]


def run_model(model, board: str, inputs=None, *, seed: int = 0, timeout: float = RUN_TIMEOUT,
              check: bool = True, compile_args=()) -> RunOutcome:
    """Compiles, builds and runs MODEL on BOARD; with `check`, compares with the host.
    compile_args: extra `tinyforge compile` options (e.g. ["--rounding", "double"])."""
    board = resolve_board(board)
    t0 = time.monotonic()
    with BoardTree(board) as tree, tempfile.TemporaryDirectory(prefix="tf-board-") as tmpname:
        tmp = Path(tmpname)
        compiled, arrays, st, elf = _prepare(model, board, tree, inputs, seed, compile_args)
        t_build = time.monotonic()
        n = st.samples
        sample_bytes = sum(s.bytes for s in compiled.inputs)
        blob = b"".join(arrays[i][k].tobytes() for k in range(n) for i in range(len(arrays)))
        assert len(blob) == n * sample_bytes
        (tmp / "in.bin").write_bytes(blob)
        # `profile`: per-op markers on the first sample (names the op on a timeout).
        r = _firmware(elf, board, ["in.bin", "out.bin", "profile"], tmp, timeout=timeout,
                      ops=compiled.report["ops"])
        t_run = time.monotonic()
        m = re.search(r"run stack (\d+) bytes", r.stdout)
        raw = (tmp / "out.bin").read_bytes()
        out_bytes = sum(s.bytes for s in compiled.outputs)
        if len(raw) != n * out_bytes:
            raise BoardError(f"firmware wrote {len(raw)} output bytes, expected {n} x {out_bytes}")
        per = np.frombuffer(raw, np.uint8).reshape(n, out_bytes)
        outs, off = [], 0
        for spec in compiled.outputs:
            y = per[:, off:off + spec.bytes].copy().view(spec.dtype).reshape((n, *spec.shape))
            outs.append(y)
            off += spec.bytes
        host_outs: list[np.ndarray] = []
        mismatch = None
        if check:
            _step(f"host run of the same program.bin ({n} sample{'s' * (n > 1)})")
            host_per = [_host_run(compiled.dir / "program.bin", [a[k] for a in arrays],
                                  len(compiled.outputs), tmp, f"s{k}") for k in range(n)]
            host_outs = [np.stack([h[i].reshape(spec.shape) for h in host_per])
                         for i, spec in enumerate(compiled.outputs)]
            for k in range(n):
                if any(not np.array_equal(outs[i][k], host_outs[i][k]) for i in range(len(outs))):
                    mismatch = _locate(compiled, elf, board, [a[k] for a in arrays], tmp, k,
                                       timeout)
                    break
        t_end = time.monotonic()
    return RunOutcome(board=board, model=str(model), samples=n,
                      outputs=[_unstack_output(s, y, st) for s, y in zip(compiled.outputs, outs)],
                      host_outputs=[_unstack_output(s, y, st)
                                    for s, y in zip(compiled.outputs, host_outs)],
                      bit_exact=check and mismatch is None,
                      mismatch=mismatch, stack_bytes=int(m.group(1)) if m else None,
                      seconds={"compile_build": round(t_build - t0, 3),
                               "firmware": round(t_run - t_build, 3),
                               "host": round(t_end - t_run, 3)})


def _locate(compiled: CompiledModel, elf: Path, board: str, sample: list[np.ndarray],
            tmp: Path, k: int, timeout: float) -> dict:
    """Re-runs sample k with per-op arena dumps on both sides; the first differing op."""
    _step(f"outputs differ on sample {k}: re-running it with every op's output dumped")
    (tmp / "bdump").mkdir()
    (tmp / "one.bin").write_bytes(b"".join(x.tobytes() for x in sample))
    _firmware(elf, board, ["one.bin", "one_out.bin", "dump", "bdump/"], tmp, timeout=timeout)
    _host_run(compiled.dir / "program.bin", sample, len(compiled.outputs), tmp, "dump",
              dump_dir=tmp / "hdump")
    found = first_difference(compiled, tmp / "bdump", tmp / "hdump")
    result = {"sample": k}
    result.update(found or {"op": None, "note": "no op output differs in the dumps"})
    return result


def run(model, board: str, inputs=None, **kw) -> list[np.ndarray]:
    """The board's outputs for `inputs` (arrays or .npy paths; None: seeded random), checked
    bit-exact against the host runtime; raises BoardError on any failure or mismatch."""
    outcome = run_model(model, board, inputs, **kw)
    if kw.get("check", True) and not outcome.bit_exact:
        raise BoardError(_mismatch_text(outcome))
    return outcome.outputs


def _mismatch_text(o: RunOutcome) -> str:
    m = o.mismatch or {}
    if m.get("op") is None:
        return f"{o.board} output differs from the host runtime on sample {m.get('sample')}"
    return (f"{o.board} output differs from the host runtime on sample {m['sample']}: first "
            f"differing op #{m['op']} '{m['name']}' ({m['type']}, kernel {m['kernel']}): "
            f"{m['bytes_differing']} bytes of '{m['buffer']}' differ")


# ---- profile -----------------------------------------------------------------------------
FLASH_PARTS = ("runtime", "kernels", "constants", "other")


def _flash_part(source: str) -> str:
    base = source.replace("\\", "/")
    if "libtinyforge_runtime" in base:  # the core and the op glue (runtime_ops)
        return "runtime"
    if "libtinyforge_kernels" in base:
        return "kernels"
    if re.search(r"(^|/)model\.cc\.obj$", base):  # the generated model: program + weights
        return "constants"
    return "other"


# newlib's allocator: no firmware may link it (no heap; targets/README.md, "Writing firmware").
ALLOCATOR_SYMBOLS = ("malloc", "free", "calloc", "realloc", "_malloc_r", "_free_r",
                     "_calloc_r", "_realloc_r", "_sbrk", "_sbrk_r")


def allocator_symbols(elf: Path) -> list[str]:
    """The allocator functions defined or referenced in ELF (arm-none-eabi-nm): should be
    none."""
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    names = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return sorted(names & set(ALLOCATOR_SYMBOLS))


def _loaded_sections(elf: Path) -> set[str]:
    """Names of the ELF's sections that occupy bytes in the image (SHF_ALLOC, not NOBITS)."""
    data = elf.read_bytes()
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2E)
    heads = [struct.unpack_from("<IIIIII", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = heads[shstrndx][4]
    out = set()
    for name, kind, flags, _, _, _ in heads:
        if flags & 0x2 and kind != 8:  # SHF_ALLOC, not SHT_NOBITS
            end = data.index(b"\0", names_at + name)
            out.add(data[names_at + name:end].decode())
    return out


_MAP_ADDR = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)(?:\s+load address 0x([0-9a-f]+))?\s*$")
_MAP_OUT = re.compile(r"^(\S+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)"
                      r"(?:\s+load address 0x([0-9a-f]+))?)?\s*$")
_MAP_IN = re.compile(r"^ (\S+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*))?$")
_MAP_IN_CONT = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")


def flash_split(map_file: Path, board: str, elf: Path | None = None) -> dict:
    """Flash bytes by origin, from the GNU ld map: the input sections of every output section
    stored in the image (ELF: allocated, not NOBITS) whose load address is in a code or ROM
    region of the board, attributed to the object or archive member they come from; fill
    between them counts as `other`."""
    elf = elf or Path(str(map_file)[:-len(".map")])
    loaded = _loaded_sections(elf)
    flash = [(int(r["base"], 16), int(r["base"], 16) + r["size"])
             for r in boards()[board]["memory"] if r["purpose"] in ("code", "rom")]
    parts = {p: 0 for p in FLASH_PARTS}
    objects: dict[str, int] = {}
    text = map_file.read_text(errors="replace")
    start = text.find("Linker script and memory map")
    lines = text[start:].splitlines()[1:] if start >= 0 else []
    section, counted, pending = None, False, None

    def open_section(name: str, vma: int, lma: str | None) -> None:
        nonlocal counted
        addr = int(lma, 16) if lma else vma
        counted = name in loaded and any(lo <= addr < hi for lo, hi in flash)

    def add(source: str, size: int) -> None:
        parts[_flash_part(source)] += size
        member = re.sub(r"^.*/", "", source)
        objects[member] = objects.get(member, 0) + size

    for line in lines:
        if line.startswith("OUTPUT(") or line.startswith("LOAD ") or not line.strip():
            continue
        if not line.startswith(" "):  # an output section
            m = _MAP_OUT.match(line)
            section, counted, pending = (m.group(1) if m else None), False, None
            if m and m.group(2):
                open_section(section, int(m.group(2), 16), m.group(4))
            elif m:
                pending = ("out", section)
            continue
        if pending and pending[0] == "out":
            m = _MAP_ADDR.match(line)
            if m:
                open_section(pending[1], int(m.group(1), 16), m.group(3))
            pending = None
            continue
        if not counted:
            continue
        if line.startswith(" *fill*"):
            f = line.split()
            if len(f) >= 3:
                parts["other"] += int(f[2], 16)
            continue
        if pending and pending[0] == "in":
            m = _MAP_IN_CONT.match(line)
            pending = None
            if m:
                add(m.group(3).strip(), int(m.group(2), 16))
                continue
        m = _MAP_IN.match(line)
        if m and m.group(1).startswith(".") or (m and m.group(1) == "COMMON"):
            if m.group(2) is None:
                pending = ("in", m.group(1))
            elif not m.group(4).startswith("0x"):
                add(m.group(4).strip(), int(m.group(3), 16))
    total = sum(parts.values())
    return {**parts, "total": total,
            "top_objects": dict(sorted(objects.items(), key=lambda kv: -kv[1])[:12])}


def profile(model, board: str, inputs=None, *, seed: int = 0, timeout: float = RUN_TIMEOUT,
            compile_args=()) -> dict:
    """Per-op instructions, stack, RAM and flash of one inference of MODEL on BOARD."""
    board = resolve_board(board)
    with BoardTree(board) as tree, tempfile.TemporaryDirectory(prefix="tf-board-") as tmpname:
        tmp = Path(tmpname)
        compiled, arrays, st, elf = _prepare(model, board, tree, inputs, seed, compile_args)
        if st.samples != 1:
            raise BoardError(f"profile runs one sample; the input stacks {st.samples}",
                             EXIT_INVALID)
        (tmp / "in.bin").write_bytes(b"".join(a[0].tobytes() for a in arrays))
        r = _firmware(elf, board, ["in.bin", "out.bin", "profile"], tmp, timeout=timeout,
                      ops=compiled.report["ops"])
        if r.perf is None:
            raise BoardError("no instruction counts: the QEMU plugin is not built "
                             "(cmake -S targets/qemu -B build/qemu-plugin && "
                             "cmake --build build/qemu-plugin; targets/README.md)")
        events = [e.insns for e in r.perf.events if e.region == 1]
        ops = compiled.report["ops"]
        if len(events) != len(ops) or r.perf.errors:
            raise BoardError(f"profile: {len(events)} op events for {len(ops)} ops "
                             f"{r.perf.errors or ''}")
        total = r.perf.regions[0].insns
        rows = []
        for op, n in zip(ops, events):
            rows.append({"index": op["index"], "name": op["name"], "type": op["type"],
                         "kernel": op["kernel"], "macs": op["macs"], "insns": n,
                         "insns_per_mac": round(n / op["macs"], 3) if op["macs"] else None,
                         "share": round(n / total, 4) if total else None})
        m = re.search(r"run stack (\d+) bytes, stack (\d+) bytes", r.stdout)
        stack = int(m.group(1)) if m else None
        regions = {reg["name"]: reg["used"] for reg in compiled.report["regions"] if reg["used"]}
        flash = flash_split(Path(str(elf) + ".map"), board, elf)
        return {
            "schema": "tinyforge.profile/1",
            "board": board, "cpu": boards()[board]["cpu"], "model": str(model),
            "model_name": compiled.report.get("model"),
            "ops": rows,
            "insns_per_inference": total,
            "insns_in_ops": sum(events),
            "macs": sum(op["macs"] for op in ops),
            "stack": {"high_water": stack, "size": int(m.group(2)) if m else None},
            "ram": {"arena": regions, "arena_total": sum(regions.values()), "stack": stack,
                    "total": sum(regions.values()) + (stack or 0)},
            "flash": flash,
            "plugin_mode": r.perf.mode,
        }


def _g(n) -> str:
    return "-" if n is None else f"{n:,}"


def profile_text(p: dict) -> str:
    out = [f"{p['model']} on {p['board']} ({p['cpu']}): {len(p['ops'])} ops, "
           f"instructions counted by QEMU (-icount, tf_insncount mode={p['plugin_mode']})"]
    name_w = max([4] + [len(o["name"]) for o in p["ops"]])
    type_w = max([4] + [len(o["type"]) for o in p["ops"]])
    kern_w = max([6] + [len(o["kernel"]) for o in p["ops"]])
    out.append(f"{'#':>3}  {'op':<{name_w}}  {'type':<{type_w}}  {'kernel':<{kern_w}}  "
               f"{'MACs':>11}  {'instructions':>13}  {'insn/MAC':>8}  {'share':>6}")
    for o in p["ops"]:
        ipm = "-" if o["insns_per_mac"] is None else f"{o['insns_per_mac']:.2f}"
        out.append(f"{o['index']:>3}  {o['name']:<{name_w}}  {o['type']:<{type_w}}  "
                   f"{o['kernel']:<{kern_w}}  {_g(o['macs']):>11}  {_g(o['insns']):>13}  "
                   f"{ipm:>8}  {100 * (o['share'] or 0):5.1f}%")
    total, in_ops = p["insns_per_inference"], p["insns_in_ops"]
    out.append(f"instructions per inference: {_g(total)} ({_g(in_ops)} in ops, "
               f"{_g(total - in_ops)} runtime between ops; "
               f"{total / p['macs']:.2f} per MAC)" if p["macs"] else
               f"instructions per inference: {_g(total)}")
    ram = p["ram"]
    arena = ", ".join(f"{k} {_g(v)}" for k, v in ram["arena"].items()) or "none"
    out.append(f"RAM: arena {arena} (planned); stack high-water {_g(ram['stack'])} "
               f"(of {_g(p['stack']['size'])}); total {_g(ram['total'])} bytes")
    f = p["flash"]
    out.append(f"flash: {_g(f['total'])} bytes = runtime {_g(f['runtime'])} + kernels "
               f"{_g(f['kernels'])} + weights/program constants {_g(f['constants'])} + other "
               f"(C library, startup, board) {_g(f['other'])}")
    return "\n".join(out)


# ---- command line ------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tinyforge", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name, help_ in (("run", "run on an emulated board, check bit-exact against the host"),
                        ("profile", "per-op instructions, stack, RAM and flash on a board")):
        s = sub.add_parser(name, help=help_, description=help_)
        s.add_argument("model", help="graph file (.tfg, .tflite) or a `compile --target -o` "
                                     "directory")
        s.add_argument("--board", "--target", dest="board", required=True,
                       help="an385, an386, an505, an547, or cortex-m3/m4/m33/m55")
        s.add_argument("-i", "--input", action="append", default=[],
                       help=".npy per program input (default: seeded random); may stack N "
                            "samples" if name == "run" else ".npy per program input "
                            "(default: seeded random)")
        s.add_argument("--seed", type=int, default=0, help="seed of the random input")
        s.add_argument("--timeout", type=float, default=RUN_TIMEOUT,
                       help=f"seconds for the QEMU run (default {RUN_TIMEOUT:g})")
        s.add_argument("--json", action="store_true", help="print JSON")
        for opt, h in (("--io", "as compile --io"), ("--layout", "as compile --layout"),
                       ("--rounding", "as compile --rounding")):
            s.add_argument(opt, help=h)
        if name == "run":
            s.add_argument("-o", "--output", action="append", default=[],
                           help=".npy to write per program output (stacked like the input)")
            s.add_argument("--no-check", action="store_true",
                           help="skip the comparison with the host runtime")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    compile_args = [x for opt in ("io", "layout", "rounding") if getattr(args, opt)
                    for x in (f"--{opt}", getattr(args, opt))]
    try:
        if args.cmd == "profile":
            p = profile(args.model, args.board, args.input or None, seed=args.seed,
                        timeout=args.timeout, compile_args=compile_args)
            print(json.dumps(p, indent=2) if args.json else profile_text(p))
            return EXIT_OK
        o = run_model(args.model, args.board, args.input or None, seed=args.seed,
                      timeout=args.timeout, check=not args.no_check,
                      compile_args=compile_args)
        if args.output and len(args.output) != len(o.outputs):
            raise BoardError(f"the program has {len(o.outputs)} output(s), "
                             f"{len(args.output)} --output given", EXIT_INVALID)
        for path, y in zip(args.output, o.outputs):
            np.save(path, y)
        if args.json:
            j = o.to_json()
            for i, path in enumerate(args.output):
                j["outputs"][i]["file"] = path
            print(json.dumps(j, indent=2))
        else:
            for i, y in enumerate(o.outputs):
                s = _value_summary(y)
                dest = f" -> {args.output[i]}" if i < len(args.output) else ""
                print(f"output {i}: {y.dtype.name}{list(y.shape)}{dest}  min={s['min']} "
                      f"max={s['max']} argmax={s['argmax'] if o.samples > 1 else s['argmax'][0]}")
            if not args.no_check:
                verdict = ("bit-exact with the host runtime" if o.bit_exact
                           else "DIFFERENT from the host runtime")
                print(f"{o.board}: {o.samples} inference{'s' * (o.samples > 1)}, {verdict}"
                      + (f"; run stack {o.stack_bytes:,} bytes" if o.stack_bytes else ""))
        if not args.no_check and not o.bit_exact:
            print(f"error: {_mismatch_text(o)}", file=sys.stderr)
            return EXIT_FAILURE
        return EXIT_OK
    except BoardError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
