"""Running compiled models on the emulated boards: inputs (seeded random or .npy, stacked
samples), the firmware run under QEMU (tinyforge.qemu), the host runtime on the same
program.bin, the bit-exact comparison and the search for the first differing op, and the
per-op profile. The firmware's output is parsed here (and only here).
"""
from __future__ import annotations

import dataclasses
import os
import re
import tempfile
import time
from pathlib import Path

import numpy as np

from . import qemu
from .board_build import (BoardTree, CompiledModel, TensorSpec, cli, compile_for_board,
                          require_tools, step)
from .board_catalog import board as board_json
from .board_catalog import resolve_emulated_board
from .board_flash import flash_split
from .errors import BoardError, ErrorKind
from .paths import repo_root
from .report import buffer_kind

RUN_TIMEOUT = 120.0


def _prepare(model, board: str, tree: BoardTree, inputs, seed: int, compile_args=()
             ) -> tuple[CompiledModel, list[np.ndarray], "Stacked", Path]:
    """Compile, check the inputs against the program (before building), build."""
    require_tools()
    compiled = compile_for_board(model, board, tree.model_dir, compile_args)
    arrays, st = _load_inputs(compiled, inputs, seed)
    return compiled, arrays, st, tree.build(compiled)


# ---- inputs ------------------------------------------------------------------------------
@dataclasses.dataclass
class Stacked:
    samples: int
    layout: str  # "single", "prepend" ([N, *shape]), "batch" ([N, *shape[1:]]), "flat"


def check_finite(x: np.ndarray, what: str) -> None:
    """A float input must hold only finite values (as `tinyforge run` checks them:
    compiler/exec/npy.h CheckFinite): BoardError naming the first NaN or infinity."""
    if x.dtype.kind != "f":
        return
    bad = np.flatnonzero(~np.isfinite(x.reshape(-1)))
    if bad.size:
        i = int(bad[0])
        at = ",".join(str(int(c)) for c in np.unravel_index(i, x.shape)) if x.ndim else ""
        raise BoardError(f"{what}: element {i} (index [{at}]) is {x.reshape(-1)[i]}: a model "
                         "input must be finite (replace NaN and infinity before running)",
                         ErrorKind.INVALID_INPUT)


def _stack_input(spec: TensorSpec, x: np.ndarray, what: str) -> tuple[np.ndarray, Stacked]:
    """x as [N, *spec.shape] and how it was stacked; BoardError(2) if it does not fit."""
    shape, elems = tuple(spec.shape), int(np.prod(spec.shape))
    if x.dtype != spec.dtype:
        raise BoardError(f"{what}: dtype {x.dtype.name}, the program's input {spec.index} is "
                         f"{spec.describe()}" + (f" (scale {spec.scale}, zero point "
                                                 f"{spec.zero_point})" if spec.scale else ""),
                         ErrorKind.INVALID_INPUT)
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
               else "") + f" or N*{elems} elements flat", ErrorKind.INVALID_INPUT)
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
_STATUS_LINE = re.compile(r'^TF_STATUS\(\w+, (\w+), (\d+), "(.*)"\)$', re.M)


def status_text(text: str) -> str:
    """TEXT with each "tf_status <value>" the firmware printed (model_runner.cc prints the
    runtime's status as a number) spelled out from runtime/include/tinyforge/status.def, as
    tf_status_str would: "program CRC mismatch (TF_E_BAD_CRC)"."""
    table = {int(v): f"{t} ({c})" for c, v, t in _STATUS_LINE.findall(
        (repo_root() / "runtime" / "include" / "tinyforge" / "status.def").read_text())}
    return re.sub(r"tf_status (-?\d+)",
                  lambda m: table.get(int(m.group(1)), f"unknown status {m.group(1)}"), text)


def _firmware(elf: Path, board: str, args: list[str], cwd: Path, *, timeout: float,
              ops: list[dict] | None = None, memory: bool = False):
    """Runs the firmware (per-op events on; with `memory`, data bytes per memory region);
    BoardError unless it exited 0."""
    step(f"run on {board} ({board_json(board)['qemu']['machine']}, QEMU)")
    try:
        r = qemu.run(elf, board=board, args=args, timeout=timeout, events=True, cwd=cwd,
                     memory=memory)
    except qemu.RunError as e:
        raise BoardError(str(e), e.kind) from None
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
        text = status_text(r.stdout.strip() or r.stderr.strip() or "(no output)")
        kind = {3: "the program failed validation", 2: "bad input"}.get(r.exit_code, "failed")
        raise BoardError(f"firmware on {board}: {kind} (exit {r.exit_code}): {text}")
    return r


def _host_run(program: Path, inputs: list[np.ndarray], num_outputs: int, tmp: Path, tag: str,
              dump_dir: Path | None = None, steps: int = 0) -> list[np.ndarray]:
    """`tinyforge run program.bin -i ... -o ...`: the host runtime on one sample, or with
    `steps` on that many calls stacked first (a streaming model's sequence)."""
    args: list = ["run", program] + (["--steps", steps] if steps else [])
    for i, x in enumerate(inputs):
        p = tmp / f"{tag}_in{i}.npy"
        np.save(p, x)
        args += ["-i", p]
    outs = [tmp / f"{tag}_out{i}.npy" for i in range(num_outputs)]
    for p in outs:
        args += ["-o", p]
    if dump_dir is not None:
        args += ["--dump-dir", dump_dir]
    proc = cli(*args)
    if proc.returncode != 0:
        raise BoardError(f"host run of {program} failed: {(proc.stderr or proc.stdout).strip()}")
    return [np.load(p) for p in outs]


def _op_outputs(report: dict) -> dict[int, list[dict]]:
    """Per op, the buffers it defines (its outputs), without scratch and line buffers
    (report.buffer_kind)."""
    ops = {o["index"] for o in report["ops"]}
    out: dict[int, list[dict]] = {k: [] for k in ops}
    for b in report.get("buffers", []):
        if b["first_op"] in ops and buffer_kind(b, report["ops"]) == "tensor":
            out[b["first_op"]].append(b)
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
        step(f"input: seeded random (seed {seed})")
    if len(inputs) != len(compiled.inputs):
        raise BoardError(f"the program has {len(compiled.inputs)} input(s), got {len(inputs)}",
                         ErrorKind.INVALID_INPUT)
    arrays, stacks = [], []
    for spec, x in zip(compiled.inputs, inputs):
        what = str(x) if isinstance(x, (str, os.PathLike)) else f"input {spec.index}"
        if isinstance(x, (str, os.PathLike)):
            try:
                x = np.load(x, allow_pickle=False)
            except (OSError, ValueError) as e:
                raise BoardError(f"{what}: cannot read .npy: {e}", ErrorKind.INVALID_INPUT) from None
        x = np.asarray(x)
        check_finite(x, what)
        arr, st = _stack_input(spec, x, what)
        arrays.append(arr)
        stacks.append(st)
    if len({s.samples for s in stacks}) != 1:
        raise BoardError("the inputs stack different numbers of samples: "
                         + ", ".join(str(s.samples) for s in stacks), ErrorKind.INVALID_INPUT)
    return arrays, stacks[0]


def run_model(model, board: str, inputs=None, *, seed: int = 0, timeout: float = RUN_TIMEOUT,
              check: bool = True, compile_args=()) -> RunOutcome:
    """Compiles, builds and runs MODEL on BOARD; with `check`, compares with the host.
    compile_args: extra `tinyforge compile` options (e.g. ["--rounding", "double"])."""
    board = resolve_emulated_board(board)
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
            step(f"host run of the same program.bin ({n} sample{'s' * (n > 1)}"
                 + (", one sequence)" if compiled.state else ")"))
            if compiled.state:  # the samples are the calls of one sequence
                host_outs = [h.reshape((n, *spec.shape)) for h, spec in zip(
                    _host_run(compiled.dir / "program.bin", arrays, len(compiled.outputs), tmp,
                              "seq", steps=n), compiled.outputs)]
            else:
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
    """Re-runs sample k with per-op arena dumps on both sides; the first differing op.
    (A streaming model's sample k runs from the reset state here, not after samples < k.)"""
    step(f"outputs differ on sample {k}: re-running it with every op's output dumped")
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


def profile(model, board: str, inputs=None, *, seed: int = 0, timeout: float = RUN_TIMEOUT,
            compile_args=()) -> dict:
    """Per-op instructions, stack, RAM and flash of one inference of MODEL on BOARD."""
    board = resolve_emulated_board(board)
    with BoardTree(board) as tree, tempfile.TemporaryDirectory(prefix="tf-board-") as tmpname:
        tmp = Path(tmpname)
        compiled, arrays, st, elf = _prepare(model, board, tree, inputs, seed, compile_args)
        if st.samples != 1:
            raise BoardError(f"profile runs one sample; the input stacks {st.samples}",
                             ErrorKind.INVALID_INPUT)
        (tmp / "in.bin").write_bytes(b"".join(a[0].tobytes() for a in arrays))
        r = _firmware(elf, board, ["in.bin", "out.bin", "profile"], tmp, timeout=timeout,
                      ops=compiled.report["ops"], memory=True)
        if r.perf is None:
            raise BoardError("no instruction counts: the QEMU plugin is not built "
                             "(cmake -S targets/qemu -B build/qemu-plugin && "
                             "cmake --build build/qemu-plugin; targets/README.md)")
        op_events = [e for e in r.perf.events if e.region == 1]
        events = [e.insns for e in op_events]
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
            if "pipe_stage" in op:  # a pipe's instructions count in its first op
                rows[-1]["pipe"] = [op["pipe_stage"], op["pipe_stages"]]
        for row, e in zip(rows, op_events):
            row["reads"] = e.reads  # data bytes the op read, per memory region
        m = re.search(r"run stack (\d+) bytes, stack (\d+) bytes", r.stdout)
        stack = int(m.group(1)) if m else None
        regions = {reg["name"]: reg["used"] for reg in compiled.report["regions"] if reg["used"]}
        # Constants copied into RAM at init (compile --hot-constants), per region.
        consts = {reg["name"]: reg["constants"] for reg in compiled.report["regions"]
                  if reg.get("constants")}
        flash = flash_split(Path(str(elf) + ".map"), board, elf)
        # Data bytes read / written during one inference (TF_PERF region 0), per board
        # memory region, in the board's order ("other": no region, e.g. a peripheral).
        order = [m["name"] for m in board_json(board)["memory"]] + ["other"]
        mem = r.perf.memory.get(0, {})
        reads = {k: mem[k].read for k in order if k in mem and mem[k].read}
        writes = {k: mem[k].write for k in order if k in mem and mem[k].write}
        return {
            "schema": "tinyforge.profile/1",
            "measure": "instructions",
            "board": board, "cpu": board_json(board)["cpu"], "model": str(model),
            "model_name": compiled.report.get("model"),
            "ops": rows,
            "insns_per_inference": total,
            "insns_in_ops": sum(events),
            "macs": sum(op["macs"] for op in ops),
            "stack": {"high_water": stack, "size": int(m.group(2)) if m else None},
            "ram": {"arena": regions, "arena_total": sum(regions.values()), "stack": stack,
                    "constants": consts,
                    "total": sum(regions.values()) + sum(consts.values()) + (stack or 0)},
            "flash": flash,
            "reads": reads, "writes": writes,
            "plugin_mode": r.perf.mode,
        }


def _g(n) -> str:
    return "-" if n is None else f"{n:,}"


def profile_text(p: dict) -> str:
    """The table `tinyforge profile` prints: of the QEMU profile (instructions) or of a
    device trace (cycles, board_trace.profile_from_trace)."""
    cycles = p.get("measure") == "cycles"
    key, label, per_mac = ("cycles", "cycles", "cyc/MAC") if cycles else \
        ("insns", "instructions", "insn/MAC")
    if cycles:
        t = p["trace"]
        hz = f", {t['clock_hz']:,} Hz" if t["clock_hz"] else ", clock unknown"
        out = [f"{p['model']} on {p['board']} ({p['cpu'] or '?'}): {len(p['ops'])} ops, "
               f"cycles counted on the device ({t['cycle_source']}{hz}; {t['file']})"]
    else:
        out = [f"{p['model']} on {p['board']} ({p['cpu']}): {len(p['ops'])} ops, "
               f"instructions counted by QEMU (-icount, tf_insncount mode={p['plugin_mode']})"]
    name_w = max([4] + [len(o["name"]) for o in p["ops"]])
    type_w = max([4] + [len(o["type"]) for o in p["ops"]])
    kern_w = max([6] + [len(o["kernel"]) for o in p["ops"]])
    out.append(f"{'#':>3}  {'op':<{name_w}}  {'type':<{type_w}}  {'kernel':<{kern_w}}  "
               f"{'MACs':>11}  {label:>13}  {per_mac:>8}  {'share':>6}")
    for o in p["ops"]:
        ipm = "-" if o[key + "_per_mac"] is None else f"{o[key + '_per_mac']:.2f}"
        mark = "  (wrapped: at least)" if o.get("wrapped") else ""
        out.append(f"{o['index']:>3}  {o['name']:<{name_w}}  {o['type']:<{type_w}}  "
                   f"{o['kernel']:<{kern_w}}  {_g(o['macs']):>11}  {_g(o[key]):>13}  "
                   f"{ipm:>8}  {100 * (o['share'] or 0):5.1f}%{mark}")
    if cycles:
        in_ops, secs = p["cycles_in_ops"], p["trace"]["seconds_in_ops"]
        out.append(f"cycles in ops: {_g(in_ops)}"
                   + (f" ({1e3 * secs:.3f} ms)" if secs is not None else "")
                   + (f"; {in_ops / p['macs']:.2f} per MAC" if p["macs"] else ""))
    else:
        total, in_ops = p["insns_per_inference"], p["insns_in_ops"]
        out.append(f"instructions per inference: {_g(total)} ({_g(in_ops)} in ops, "
                   f"{_g(total - in_ops)} runtime between ops; "
                   f"{total / p['macs']:.2f} per MAC)" if p["macs"] else
                   f"instructions per inference: {_g(total)}")
    ram = p["ram"]
    arena = ", ".join(f"{k} {_g(v)}" for k, v in ram["arena"].items()) or "none"
    consts = "".join(f"; constants {k} {_g(v)} (copied at init)"
                     for k, v in ram.get("constants", {}).items())
    out.append(f"RAM: arena {arena} (planned){consts}; stack high-water {_g(ram['stack'])} "
               f"(of {_g(p['stack']['size'])}); total {_g(ram['total'])} bytes")
    if p.get("reads"):
        out.append("data read per inference: " + ", ".join(
            f"{k} {_g(v)}" for k, v in p["reads"].items()) + " bytes; written: " + (", ".join(
                f"{k} {_g(v)}" for k, v in p.get("writes", {}).items()) or "none"))
    f = p["flash"]
    if f is not None:
        out.append(f"flash: {_g(f['total'])} bytes = runtime {_g(f['runtime'])} + kernels "
                   f"{_g(f['kernels'])} + weights/program constants {_g(f['constants'])} + "
                   f"other (C library, startup, board) {_g(f['other'])}")
    return "\n".join(out)
