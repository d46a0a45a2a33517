"""`make bench`: instructions, RAM and flash per model and board, beside TFLite Micro + CMSIS-NN.

For each model (the four MLPerf Tiny reference .tflite files in ../shared/models/mlperf-tiny,
and the four zoo models exported from PyTorch with seeded weights) and each emulated board
(an385 Cortex-M3, an386 Cortex-M4, an505 Cortex-M33, an547 Cortex-M55) this compiles the
model, builds its firmware and profiles one inference under QEMU (`tinyforge.board.profile`,
the same code as `tinyforge profile`; docs/boards.md). It prints one table and, with
--write, rewrites benchmarks/RESULTS.md with it, the per-op-type ratios, the command and the
date. Instruction counts under `-icount` are deterministic: a rerun prints the same figures.
It also times the compiler on synthetic chains of 10^3, 10^4 and 10^5 ops (compile time must
grow near-linearly); --compile-time produces that section alone (about a minute).

    .venv/bin/python benchmarks/bench.py [--boards an547,an386] [--models kws,vww] [--write]
    .venv/bin/python benchmarks/bench.py --compile-time [--write]
    .venv/bin/python benchmarks/bench.py --breadth [--write]    # tinyforge.families
    .venv/bin/python benchmarks/bench.py --sequence [--write]   # the sequence models
    .venv/bin/python benchmarks/bench.py --float [--boards ..] [--models zoo-kws,..] [--write]
                                        # the zoo models as float32 programs vs int8
"""
from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from tinyforge import reference_models

ROOT = Path(__file__).resolve().parents[1]
SHARED = reference_models.shared_dir()
MLPERF = reference_models.fetch()  # ../shared's copy, or fetched (checksums checked)
ANCHORS = SHARED / "anchors"

BOARDS = ["an385", "an386", "an505", "an547"]
# name -> (source, file or zoo name)
MODELS = {
    "kws": ("tflite", "kws_ref_model.tflite"),
    "vww": ("tflite", "vww_96_int8.tflite"),
    "ic": ("tflite", "pretrainedResnet_quant.tflite"),
    "ad": ("tflite", "ad01_int8.tflite"),
    "zoo-kws": ("zoo", "ds_cnn"),
    "zoo-vww": ("zoo", "mobilenet_v1_025"),
    "zoo-ic": ("zoo", "resnet8"),
    "zoo-ad": ("zoo", "fc_autoencoder"),
}
# TFLite Micro + CMSIS-NN, measured on the same emulator (../shared/anchors/README.md).
ANCHOR_BOARD = {"an547": "m55", "an386": "m4"}
TFLM_INSNS = {
    "m55": {"kws": 1_813_155, "vww": 6_558_324, "ic": 4_913_721, "ad": 150_001},
    "m4": {"kws": 7_697_391, "vww": 24_101_948, "ic": 29_863_893, "ad": 582_910},
}
TFLM_ARENA = {
    "m55": {"kws": 27_348, "vww": 100_772, "ic": 55_028, "ad": 9_268},
    "m4": {"kws": 22_820, "vww": 100_708, "ic": 54_996, "ad": 2_580},
}
TFLM_FLASH_NO_MODEL = {
    "m55": {"kws": 73_610, "vww": 73_620, "ic": 67_581, "ad": 26_113},
    "m4": {"kws": 85_206, "vww": 85_216, "ic": 80_077, "ad": 33_489},
}
# ExecuTorch 1.5.1's Cortex-M backend on the zoo versions of the four models, float input and
# output (../shared/anchors/README.md): instructions; on the M55 its whole RAM (planned arena +
# method allocator + temp + stack + static) and its code without the model built -Os without
# logging (runtime, operators, CMSIS-NN, C library, runner, startup).
ET_INSNS = {
    "m55": {"kws": 1_809_985, "vww": 6_517_166, "ic": 4_819_966, "ad": 153_591},
    "m4": {"kws": 8_483_822, "vww": 26_057_247, "ic": 30_009_528, "ad": 618_698},
}
ET_RAM_M55 = {"kws": 39_372, "vww": 171_984, "ic": 66_064, "ad": 12_938}
ET_CODE_M55 = {"kws": 54_030, "vww": 52_048, "ic": 46_455, "ad": 37_331}
# Our op types -> TFLite's, for the per-op-type ratios.
OP_TYPE = {"qconv2d": "CONV_2D", "qdwconv2d": "DEPTHWISE_CONV_2D", "qfc": "FULLY_CONNECTED",
           "qavgpool2d": "AVERAGE_POOL_2D", "qmaxpool2d": "MAX_POOL_2D", "qadd": "ADD",
           "qmean": "MEAN", "qsoftmax": "SOFTMAX", "qmul": "MUL", "qpad": "PAD",
           "qconcat": "CONCATENATION", "requantize": "QUANTIZE"}


def anchor_per_op_type() -> dict[tuple[str, str], dict[str, int]]:
    """(m55|m4, model) -> {TFLite op type: instructions} from the anchors' per-op file."""
    out: dict[tuple[str, str], dict[str, int]] = {}
    path = ANCHORS / "tflm-cmsisnn-per-op-insns.txt"
    if not path.exists():
        return out
    key = None
    for line in path.read_text().splitlines():
        m = re.match(r"# (m55|m4) (\w+): ", line)
        if m:
            key = (m.group(1), m.group(2))
            out[key] = {}
            continue
        m = re.match(r"\s+\d+\s+(\w+)\s+(\d+)\s", line)
        if m and key:
            out[key][m.group(1)] = out[key].get(m.group(1), 0) + int(m.group(2))
    return out


def export_zoo(name: str, dest: Path, quantize: bool = True) -> Path:
    """The zoo model with seeded weights, PT2E-quantized on seeded calibration data (or, with
    `quantize` False, the same model exported as a float graph)."""
    import torch

    import tinyforge
    from tinyforge import models

    model, shape = models.get(name)
    g = torch.Generator().manual_seed(1234)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                fan_in = m.weight[0].numel()
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * (2.0 / fan_in) ** 0.5)
            elif isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
    model.eval()
    calib = [(torch.randn(*shape, generator=g),) for _ in range(8)]
    if not quantize:
        return tinyforge.export(model, calib[0], path=dest / f"{name}.float.tfg",
                                name=name).path
    return tinyforge.export(model, calib[0], calibration=calib, path=dest / f"{name}.tfg",
                            name=name).path


def min_ram_plan(tfboard, model: Path, board: str, tmp: Path) -> int | None:
    """The smallest plan's arena (`compile --min-ram --kernels ref`: in place by rows,
    portable kernels without scratch), from the compiler's --json summary."""
    import subprocess
    proc = subprocess.run([tfboard.find_cli(), "compile", str(model), "--target", board,
                           "--min-ram", "--kernels", "ref", "-o", str(tmp / f"min-{board}"),
                           "--json"], capture_output=True, text=True, timeout=600)
    return json.loads(proc.stdout).get("ram_bytes") if proc.returncode == 0 else None


def tflm_total_ratio(ours: int | None, anchor_board: str | None, base: str) -> str:
    """Our whole image against TFLM's image without the model plus the .tflite it would
    carry (the matching MLPerf Tiny file for a zoo model)."""
    if not anchor_board or base not in TFLM_FLASH_NO_MODEL.get(anchor_board, {}):
        return "-"
    model = MLPERF / MODELS[base][1]
    if not model.exists():
        return "-"
    return ratio(ours, TFLM_FLASH_NO_MODEL[anchor_board][base] + model.stat().st_size)


def ratio(ours: int | None, theirs: int | None, digits: int = 2) -> str:
    return f"{ours / theirs:.{digits}f}x" if ours and theirs else "-"


def g(n) -> str:
    return "-" if n is None else f"{n:,}"


COMPILE_SIZES = [1_000, 10_000, 100_000]
# The program format holds 65,535 tensors: a chain of this many ops is the longest --target
# row (larger ones print "-").
TARGET_MAX_OPS = 50_000


def compile_time_table(cli: str, tmp: Path) -> str:
    """CPU (and wall) seconds of `tinyforge compile` on chains of COMPILE_SIZES ops."""
    import resource
    import subprocess

    from tinyforge.synthetic import write_chain_graph

    def timed(*args: str) -> str:
        def cpu() -> float:
            r = resource.getrusage(resource.RUSAGE_CHILDREN)
            return r.ru_utime + r.ru_stime

        cpu0, wall0 = cpu(), time.monotonic()
        subprocess.run([cli, *args], check=True, capture_output=True, timeout=3600)
        return f"{cpu() - cpu0:.2f} s ({time.monotonic() - wall0:.1f} s wall)"

    lines = ["| graph-file ops | qdq: lower (all passes, --verify-each) | "
             "qdq: --target cortex-m55 | float: import, verify, const-fold, dce |",
             "|---|---|---|---|"]
    for n in COMPILE_SIZES:
        print(f"bench: compile time, {n:,} ops", file=sys.stderr, flush=True)
        q = write_chain_graph(tmp / f"chain{n}q.tfg", n, quantized=True)
        f = write_chain_graph(tmp / f"chain{n}f.tfg", n, quantized=False)
        lower = timed("compile", str(q), "--verify-each", "-o", str(tmp / "out.tfg"))
        target = "- (over 65,535 program tensors)"
        if n <= TARGET_MAX_OPS:
            target = timed("compile", str(q), "--target", "cortex-m55", "-o", str(tmp / "out"))
        flt = timed("compile", str(f), "--verify-each", "--passes", "const-fold,dce", "-o",
                    str(tmp / "outf.tfg"))
        lines.append(f"| {n:,} | {lower} | {target} | {flt} |")
    return "\n".join(lines)


def float_note(table: str) -> str:
    """The closing note: how far float is from int8 per board (instructions, arena)."""
    per: dict[str, list[tuple[float, float]]] = {}
    for line in table.splitlines()[2:]:
        c = [x.strip() for x in line.strip("|").split("|")]
        num = [int(x.replace(",", "")) if x.replace(",", "").isdigit() else None for x in c]
        if None in (num[2], num[3], num[5], num[6]):
            continue
        per.setdefault(c[1], []).append((num[2] / num[3], num[5] / num[6]))
    parts = []
    for b, r in per.items():
        ins, ram = [x for x, _ in r], [y for _, y in r]
        parts.append(f"on {b} float takes {min(ins):.1f}x to {max(ins):.1f}x the instructions "
                     f"of int8 and {min(ram):.1f}x to {max(ram):.1f}x its arena")
    return ("How far float is from int8: " + "; ".join(parts) + ". Weights take 4 bytes "
            "instead of 1 (flash), activations 4 instead of 1 (arena).") if parts else ""


COMPILE_HEAD = "## Compile time"
COMPILE_TEXT = """{head}

CPU time (user + sys; wall time in parentheses) of `tinyforge compile`, one process: reading
the graph file, the passes, writing. Synthetic chains (`tinyforge.synthetic`: linear -> relu ->
residual add blocks, 9 graph-file ops per block quantized, 3 float) on the machine the project
is built on (2 shared cores: wall time varies with its load; the growth from row to row is
the point). Before issue 19's fixes the quantized 10^4 chain took 12 s CPU (129 s wall) for
`--target cortex-m55`, and lowering the 10^5 chain did not finish in 5 minutes.
Made by `{command}` on {date}.

{table}
"""


# Sections after the main tables, in this order; each is rewritten on its own. The flash
# notes are written by hand (a breakdown by symbol from the linker map) and kept.
BREADTH_HEAD = "## Breadth: everyday architectures"
FLASH_HEAD = "## Flash notes"
# Hand-written (models tried outside the repository); kept when the other sections are redone.
TRIED_HEAD = "## Tried models (not in the repository)"
MODES_HEAD = "## Plans and builds side by side (M55 and M4)"
SEQUENCE_HEAD = "## Sequence models"
FLOAT_HEAD = "## Float models"
SECTION_HEADS = [MODES_HEAD, FLASH_HEAD, BREADTH_HEAD, TRIED_HEAD, SEQUENCE_HEAD, FLOAT_HEAD, COMPILE_HEAD]
FLOAT_TEXT = """{head}

The four zoo models exported without calibration run as float32 programs (float input and
output; docs/decisions.md 52) beside the same models quantized to int8 (exported as the main
table's `zoo-*` rows and profiled in the same run, on the board's fastest int8 kernels). The
float kernels compute in Arm's standard FPSCR mode (flush to zero, default NaN; decision 55):
on the an547 `f32_conv__mve`, `f32_dwconv__mve`, `f32_fc__mve` (MVE-F, one output channel
per lane, __ref's order per output), on the an386 `f32_conv__dsp` / `f32_dwconv__dsp` /
`f32_fc__dsp` (FPU, sums in registers: 2 pixels x 4 channels / 4 channels / 4 outputs), on
the an385 `f32_conv__scalar` / `f32_dwconv__scalar` and `__ref` for FC (soft-float, the mode
emulated); `__ref` for the pools everywhere. Made by `{command}` on {date}; RAM = the planned arena (all regions), flash =
the whole image (linker map). Soft-float (an385) instruction counts depend on the values:
they move by about 1% between runs, as export_zoo leaves the biases at PyTorch's unseeded
initialization (the FPU boards' float counts repeat exactly).

{table}

{note}
"""


def float_table(tfboard, tmp: Path, boards: list[str], names: list[str]) -> str:
    """Float vs int8 per zoo model and board: instructions, arena, flash."""
    lines = ["| model | board | float insns | int8 insns | float / int8 | float arena | "
             "int8 arena | float flash | int8 flash |", "|" + "---|" * 9]
    for n in names:
        kind, what = MODELS[n]
        if kind != "zoo":
            continue
        paths = {"float": export_zoo(what, tmp, quantize=False), "int8": export_zoo(what, tmp)}
        for b in boards:
            print(f"bench: {n} float/int8 on {b}", file=sys.stderr, flush=True)
            p = {k: tfboard.profile(str(path), b) for k, path in paths.items()}
            fi, qi = p["float"]["insns_per_inference"], p["int8"]["insns_per_inference"]
            lines.append(
                f"| {n} | {b} ({p['float']['cpu']}) | {g(fi)} | {g(qi)} | {ratio(fi, qi, 1)} | "
                f"{g(p['float']['ram']['arena_total'])} | {g(p['int8']['ram']['arena_total'])} | "
                f"{g(p['float']['flash'].get('total'))} | {g(p['int8']['flash'].get('total'))} |")
    return "\n".join(lines)


MODES_BOARDS = ["an547", "an386"]
MODES_TEXT = """{head}

Each model as `tinyforge compile --target B` builds it by default (whole tensors, the
fastest kernels, `--optimize speed`) beside the other plans and builds, one inference each
under QEMU with the instruction-count plugin (made by `{command}` on {date}); every run's
outputs are checked equal to the host runtime's. RAM = planned arena (all regions) + the
measured stack high-water; code = runtime + kernels + other (C library, startup, the test
firmware's I/O), without the model's program and weights.
- **`--min-ram`**: the smallest plan with the board's fast kernels (in place by blocks of
  rows, the kernel per op chosen by RAM among the same instruction set: docs/decisions.md
  54, 58); the ratio is its instructions over the default's (the issue-17 bar for "at
  speed" is 1.10x).
- **smallest (ref)**: `--min-ram --kernels ref`'s arena, the least RAM (portable kernels).
- **`--optimize size`**: lightest ops on `__ref`, small conv drivers (decision 59); ratio
  to TFLite Micro + CMSIS-NN's instructions.
- **TFLM** and **ExecuTorch**: ../shared/anchors/README.md, same emulator. ExecuTorch was
  measured on the zoo models (float input and output), so its figures stand on the `zoo-*`
  rows; its RAM counts arena, method allocator, temp, stack and static data, its code is
  the -Os build without logging (M55 only).

{table}
"""


def modes_table(tfboard, paths: dict[str, Path], defaults: dict[str, dict], tmp: Path) -> str:
    """Default plan, --min-ram at speed, smallest plan, --optimize size, TFLM and ExecuTorch
    per model on MODES_BOARDS. `defaults`: profiles already made ("model@board"), reused."""

    def ram(p):
        return p["ram"]["arena_total"] + (p["ram"]["stack"] or 0)

    def code(p):
        fl = p["flash"]
        return fl.get("runtime", 0) + fl.get("kernels", 0) + fl.get("other", 0)

    lines = ["| model | board | default: insns | RAM | code | `--min-ram`: insns | RAM | "
             "smallest (ref) arena | `--optimize size`: insns | vs TFLM | code | "
             "TFLM insns | arena | ExecuTorch insns | ours / ET | RAM | code (-Os) |",
             "|" + "---|" * 17]
    for b in MODES_BOARDS:
        ab = ANCHOR_BOARD.get(b)
        for n, path in paths.items():
            base = n.removeprefix("zoo-")
            print(f"bench: {n} plans and builds on {b}", file=sys.stderr, flush=True)
            d = defaults.get(f"{n}@{b}") or tfboard.profile(str(path), b)
            smallest = d.get("min_ram_plan") or min_ram_plan(tfboard, path, b, tmp)
            mr = tfboard.profile(str(path), b, compile_args=["--min-ram"])
            sz = tfboard.profile(str(path), b, compile_args=["--optimize", "size"])
            di, mi, si = (x["insns_per_inference"] for x in (d, mr, sz))
            tflm = TFLM_INSNS.get(ab, {}).get(base)
            et = ET_INSNS.get(ab, {}).get(base) if n.startswith("zoo-") else None
            m55 = ab == "m55" and n.startswith("zoo-")
            lines.append(
                f"| {n} | {b} | {g(di)} | {g(ram(d))} | {g(code(d))} | {g(mi)} "
                f"({ratio(mi, di)}) | {g(ram(mr))} | {g(smallest)} | {g(si)} | "
                f"{ratio(si, tflm)} | {g(code(sz))} | {g(tflm)} | "
                f"{g(TFLM_ARENA.get(ab, {}).get(base))} | {g(et)} | {ratio(di, et)} | "
                f"{g(ET_RAM_M55.get(base) if m55 else None)} | "
                f"{g(ET_CODE_M55.get(base) if m55 else None)} |")
    return "\n".join(lines)


def read_section(head: str) -> str | None:
    """The current text of one of SECTION_HEADS's sections of RESULTS.md, or None."""
    path = ROOT / "benchmarks" / "RESULTS.md"
    text = path.read_text() if path.exists() else ""
    if head not in text:
        return None
    start = text.index(head)
    ends = [text.index(h) for h in SECTION_HEADS if h in text and text.index(h) > start]
    return text[start:min(ends) if ends else len(text)]


def write_section(head: str, section: str) -> None:
    """Replaces (or adds) one of SECTION_HEADS's sections of benchmarks/RESULTS.md, keeping
    the main tables and the other sections."""
    path = ROOT / "benchmarks" / "RESULTS.md"
    text = path.read_text() if path.exists() else ""
    cuts = sorted((text.index(h), h) for h in SECTION_HEADS if h in text)
    main_part = text[:cuts[0][0]] if cuts else text
    sections = {h: text[i:(cuts[k + 1][0] if k + 1 < len(cuts) else len(text))]
                for k, (i, h) in enumerate(cuts)}
    sections[head] = section
    parts = [main_part.rstrip("\n")] + [sections[h].rstrip("\n") for h in SECTION_HEADS
                                        if h in sections]
    path.write_text("\n\n".join(p for p in parts if p) + "\n")


def write_compile_section(table: str, command: str) -> None:
    write_section(COMPILE_HEAD, COMPILE_TEXT.format(
        head=COMPILE_HEAD, command=command, table=table, date=datetime.date.today().isoformat()))


BREADTH_BOARDS = ["an547", "an386"]
# Op types whose cost is per element (elementwise and data movement), and the issue-14
# targets for them: instructions per element on the M55 and the M4.
PER_ELEMENT = {"qlut", "qadd", "qsub", "qmul", "qmaximum", "qminimum", "qsquared_difference",
               "qconcat", "qpad", "transpose", "slice", "requantize", "quantize", "dequantize",
               "qmaxpool2d", "qavgpool2d", "qmean", "qsoftmax", "qlayernorm", "qgather"}
ELEMENT_TARGET = {"an547": 2.0, "an386": 4.0}


def family_tables(tfboard, tmp: Path, names: tuple[str, ...], label: str) -> str:
    """Models of tinyforge.families (`names`: the everyday architectures or the sequence
    models) on the M55 and M4: per model, and per op type summed over the models
    (instructions per MAC, or per output element)."""
    import tinyforge
    from tinyforge import families

    model_lines = ["| model | board | instructions / inference | MACs | insns / MAC | "
                   "RAM: arena + stack | flash total | of which weights + program |",
                   "|---|---|---|---|---|---|---|---|"]
    per_type: dict[tuple[str, str], dict] = {}
    for name in names:
        fam = families.get(name)
        calib = families.sample_inputs(fam.input_shapes, 8, seed=7)
        path = tinyforge.export(fam.model, calib[0], calibration=calib,
                                path=tmp / f"{name}.tfg", name=name).path
        for b in BREADTH_BOARDS:
            print(f"bench: {label} {name} on {b}", file=sys.stderr, flush=True)
            p = tfboard.profile(str(path), b)
            macs, fl = p["macs"] or 0, p["flash"]
            model_lines.append(
                f"| {name} | {b} ({p['cpu']}) | {g(p['insns_per_inference'])} | {g(macs)} | "
                f"{p['insns_per_inference'] / macs:.3f} | {g(p['ram']['arena_total'])} + "
                f"{g(p['ram']['stack'])} | {g(fl.get('total'))} | {g(fl.get('constants'))} |")
            mine: dict[str, list[int]] = {}  # op type -> [insns, units] in this model
            for op in p["ops"]:
                # A pipe's ops run interleaved, their instructions counted in the first:
                # one row for all pipes' members (per MAC), not their op types.
                t = "pipe members" if "pipe" in op else op["type"]
                op = dict(op, type=t)
                row = per_type.setdefault((op["type"], b), {"insns": 0, "units": 0,
                                                            "kernels": set(), "worst": (0, "")})
                row["insns"] += op["insns"]
                row["units"] += op["macs"] or 0
                row["kernels"].add(op["kernel"])
                m = mine.setdefault(op["type"], [0, 0])
                m[0] += op["insns"]
                m[1] += op["macs"] or 0
            for t, (insns, units) in mine.items():
                if units:
                    row = per_type[(t, b)]
                    row["worst"] = max(row["worst"], (insns / units, name))
    type_lines = ["| op type | board | instructions (all models) | per | insns per unit | "
                  "worst model | target | kernels |", "|---|---|---|---|---|---|---|---|"]
    for (t, b), row in sorted(per_type.items(), key=lambda kv: (kv[0][1], -kv[1]["insns"])):
        elem = t in PER_ELEMENT
        unit = row["insns"] / row["units"] if row["units"] else None
        target = ELEMENT_TARGET[b] if elem else None
        mark = " (over)" if target and unit and row["worst"][0] > target else ""
        type_lines.append(
            f"| {t} | {b} | {g(row['insns'])} | {'element' if elem else 'MAC'} | "
            f"{'-' if unit is None else f'{unit:.2f}'} | {row['worst'][1]} "
            f"{row['worst'][0]:.2f}{mark} | {'-' if target is None else f'<= {target:g}'} | "
            f"{', '.join(sorted(row['kernels']))} |")
    return "\n".join(model_lines) + "\n\nPer op type:\n\n" + "\n".join(type_lines)


BREADTH_TEXT = """{head}

The everyday architectures of issue 14 (`tinyforge.families`: MobileNetV2 0.35,
MobileNetV3-Small 0.5, ShuffleNetV2 x0.5, SqueezeNet 1.1 halved, EfficientNet-B0 style,
ResNet-18 half width at 64x64, a two-input two-output model, a U-Net-style segmenter at
64x64, a two-scale YOLO-style detector at 128x128, a 1-D CNN on 3-axis accelerometer windows;
seeded weights, BatchNorm
statistics from data, PT2E on seeded calibration data; single rounding), each profiled for
one inference on the M55 (an547) and the M4 (an386) as above. Per op type: instructions
summed over the models, per MAC (conv-like ops) or per output element (elementwise, data
movement, pooling, softmax; "pipe members": the ops of pipes, docs/decisions.md 84 and 99,
whose instructions a profile counts in each pipe's first op, per MAC or element of all
members); "worst model" is the model where that op type costs most per
unit, marked "(over)" above issue 14's target for per-element ops (2 on the M55, 4 on the M4).
Made by `{command}` on {date}.

{table}
"""


SEQUENCE_TEXT = """{head}

Issue 15's test models (`tinyforge.families.SEQUENCE`, built by the same classes as
tests/e2e/test_attention.py and test_rnn.py): `transformer_encoder` (learned positional
embedding, 2 nn.TransformerEncoderLayers: seq 32, d_model 64, 4 heads, ffn 128, GELU, then
mean over tokens and a Linear head), `gru_classifier` (nn.GRU 12 -> 64 over 16 steps, last
step -> Linear), `lstm_classifier` (nn.LSTM 12 -> 32 over 16 steps), `conv1d_gru` (two Conv1d
+ ReLU over [12 coefficients, 32 frames], the second with stride 2, then nn.GRU 32 -> 32 over
16 steps). Seeded weights, PT2E on seeded calibration data, single rounding; one inference
on the M55 (an547) and the M4 (an386), columns as in the breadth section. Per op type: MACs
for conv-like ops and bmm, output elements for elementwise ops, tables (qlut), softmax and
layer norm; "(over)" marks issue 14's per-element targets (2 on the M55, 4 on the M4).
Made by `{command}` on {date}.

{table}
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", default=",".join(BOARDS))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--write", action="store_true", help="rewrite benchmarks/RESULTS.md")
    ap.add_argument("--json", help="also write every profile to this JSON file")
    ap.add_argument("--breadth", action="store_true",
                    help="only the breadth section (tinyforge.families on an547 and an386)")
    ap.add_argument("--sequence", action="store_true",
                    help="only the sequence-model section (issue 15's test models on an547 "
                    "and an386)")
    ap.add_argument("--float", action="store_true",
                    help="only the float-models section (zoo models as float32 vs int8)")
    ap.add_argument("--modes", action="store_true",
                    help="only the plans-and-builds section (default, --min-ram, "
                    "--optimize size, TFLM and ExecuTorch on an547 and an386)")
    ap.add_argument("--compile-time", action="store_true",
                    help="only the compile-time section (synthetic chains of 10^3..10^5 ops)")
    args = ap.parse_args()
    from tinyforge import board as tfboard

    from tinyforge import families

    def family_section(names, label: str, flag: str, head: str, text: str) -> str:
        """One family section, printed; its text (`make bench`'s, or --<flag>'s command)."""
        with tempfile.TemporaryDirectory(prefix=f"tf-bench-{label}-") as tmpname:
            table = family_tables(tfboard, Path(tmpname), names, label)
        print(table)
        cmd = f".venv/bin/python benchmarks/bench.py --{flag} --write" \
            if getattr(args, flag) else "make bench"
        return text.format(head=head, command=cmd, table=table,
                           date=datetime.date.today().isoformat())

    # (names, label, flag, head, text) of the two family sections
    sections = [(families.SEQUENCE_NAMES, "sequence", "sequence", SEQUENCE_HEAD, SEQUENCE_TEXT),
                (families.NAMES, "breadth", "breadth", BREADTH_HEAD, BREADTH_TEXT)]
    written: dict[str, str] = {}
    if args.float:
        boards = [b for b in args.boards.split(",") if b]
        names = [m for m in args.models.split(",") if m and MODELS.get(m, ("", ""))[0] == "zoo"]
        with tempfile.TemporaryDirectory(prefix="tf-bench-float-") as tmpname:
            table = float_table(tfboard, Path(tmpname), boards, names)
        print(table)
        if args.write:
            cmd = (f".venv/bin/python benchmarks/bench.py --float --boards {args.boards} "
                   f"--models {','.join(names)} --write")
            write_section(FLOAT_HEAD, FLOAT_TEXT.format(
                head=FLOAT_HEAD, command=cmd, table=table, note=float_note(table),
                date=datetime.date.today().isoformat()))
        return 0
    for names, label, flag, head, text in sections:
        others = [f for *_, f, _, _ in sections if f != flag] + ["compile_time", "modes"]
        if any(getattr(args, f) for f in others):
            continue
        written[head] = family_section(names, label, flag, head, text)
        if getattr(args, flag):
            if args.write:
                write_section(head, written[head])
            return 0

    boards = [b for b in args.boards.split(",") if b]
    names = [m for m in args.models.split(",") if m]
    for n in names:
        if n not in MODELS:
            ap.error(f"unknown model {n!r} (known: {', '.join(MODELS)})")

    def model_paths(tmp: Path) -> dict[str, Path]:
        paths = {}
        for n in names:
            kind, what = MODELS[n]
            if kind == "tflite":
                paths[n] = MLPERF / what
                if not paths[n].exists():
                    print(f"bench: {paths[n]} not found; skipping {n}", file=sys.stderr)
                    del paths[n]
            else:
                paths[n] = export_zoo(what, tmp)
        return paths

    def modes_section(tmp: Path, paths, defaults, command: str) -> str:
        table = modes_table(tfboard, paths, defaults, tmp)
        print(table)
        return MODES_TEXT.format(head=MODES_HEAD, command=command, table=table,
                                 date=datetime.date.today().isoformat())

    if args.modes:
        with tempfile.TemporaryDirectory(prefix="tf-bench-modes-") as tmpname:
            tmp = Path(tmpname)
            section = modes_section(tmp, model_paths(tmp), {},
                                    f".venv/bin/python benchmarks/bench.py --modes "
                                    f"--models {args.models} --write")
        if args.write:
            write_section(MODES_HEAD, section)
        return 0

    with tempfile.TemporaryDirectory(prefix="tf-bench-ct-") as tmpname:
        compile_table = compile_time_table(tfboard.find_cli(), Path(tmpname))
    print(compile_table)
    if args.compile_time:
        if args.write:
            write_compile_section(compile_table, ".venv/bin/python benchmarks/bench.py "
                                  "--compile-time --write")
            print("bench: wrote the compile-time section of benchmarks/RESULTS.md",
                  file=sys.stderr)
        return 0

    per_op = anchor_per_op_type()
    rows, profiles, t0 = [], {}, time.time()
    cmd = "make bench  # = .venv/bin/python benchmarks/bench.py --write"
    if args.boards != ",".join(BOARDS) or args.models != ",".join(MODELS):
        cmd = f".venv/bin/python benchmarks/bench.py --boards {args.boards} " \
              f"--models {args.models} --write"
    with tempfile.TemporaryDirectory(prefix="tf-bench-") as tmpname:
        tmp = Path(tmpname)
        paths = model_paths(tmp)
        for b in boards:
            for n, path in paths.items():
                print(f"bench: {n} on {b}", file=sys.stderr, flush=True)
                p = tfboard.profile(str(path), b)
                p["min_ram_plan"] = min_ram_plan(tfboard, path, b, tmp)
                profiles[f"{n}@{b}"] = p
                rows.append((n, b, p))
        written[MODES_HEAD] = modes_section(tmp, paths, profiles, cmd)
    took = time.time() - t0

    head = ("| model | board | instructions / inference | insns / MAC | vs TFLM+CMSIS-NN | "
            "RAM: arena per region + stack | vs TFLM arena | smallest plan (--min-ram) | "
            "flash: runtime + kernels | weights + program | other (libc, startup) | "
            "flash total | TFLM flash w/o model | vs TFLM flash + .tflite |")
    lines = [head, "|" + "---|" * 14]
    for n, b, p in rows:
        base = n.removeprefix("zoo-")
        ab = ANCHOR_BOARD.get(b)
        tflm = TFLM_INSNS.get(ab, {}).get(base) if ab else None
        arena = " + ".join(f"{k} {v:,}" for k, v in p["ram"]["arena"].items()) or "0"
        fl = p["flash"]
        code = fl.get("runtime", 0) + fl.get("kernels", 0)
        macs = p["macs"] or 0
        lines.append(
            f"| {n} | {b} ({p['cpu']}) | {g(p['insns_per_inference'])} | "
            f"{p['insns_per_inference'] / macs:.3f} | {ratio(p['insns_per_inference'], tflm, 3)} | "
            f"{arena} + stack {g(p['ram']['stack'])} | "
            f"{ratio(p['ram']['arena_total'], TFLM_ARENA.get(ab, {}).get(base) if ab else None)} | "
            f"{g(p.get('min_ram_plan'))} | {g(code)} | {g(fl.get('constants'))} | {g(fl.get('other'))} | {g(fl.get('total'))} | "
            f"{g(TFLM_FLASH_NO_MODEL.get(ab, {}).get(base) if ab else None)} | "
            f"{tflm_total_ratio(fl.get('total'), ab, base)} |"
            if macs else f"| {n} | {b} | {g(p['insns_per_inference'])} |" + " - |" * 11)
    table = "\n".join(lines)

    # Per op type, against the anchors' per-op counts (M55 and M4 only).
    ops_lines = ["| model | board | op type | tinyforge insns | TFLM+CMSIS-NN insns | ratio |",
                 "|---|---|---|---|---|---|"]
    for n, b, p in rows:
        ab = ANCHOR_BOARD.get(b)
        base = n.removeprefix("zoo-")
        theirs = per_op.get((ab, base), {}) if ab else {}
        if not theirs:
            continue
        ours: dict[str, int] = {}
        for op in p["ops"]:
            t = OP_TYPE.get(op["type"], op["type"])
            ours[t] = ours.get(t, 0) + op["insns"]
        for t in sorted(set(ours) | set(theirs), key=lambda t: -theirs.get(t, ours.get(t, 0))):
            ops_lines.append(f"| {n} | {b} | {t} | {g(ours.get(t))} | {g(theirs.get(t))} | "
                             f"{ratio(ours.get(t), theirs.get(t), 3)} |")
    ops_table = "\n".join(ops_lines)

    print(table)
    print()
    print(ops_table)
    print(f"\n({len(rows)} profiles in {took:.0f} s)", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(profiles, indent=1))
    if args.write:
        # Sections this run does not make (hand-written notes, --float's): kept as they are.
        kept = {h: read_section(h) for h in SECTION_HEADS
                if h not in written and h != COMPILE_HEAD}
        (ROOT / "benchmarks" / "RESULTS.md").write_text(RESULTS.format(
            date=datetime.date.today().isoformat(), command=cmd, table=table,
            ops_table=ops_table))
        for head, section in kept.items():
            if section:
                write_section(head, section)
        for head, section in written.items():
            write_section(head, section)
        write_compile_section(compile_table, cmd)
        print("bench: wrote benchmarks/RESULTS.md", file=sys.stderr)
    return 0


RESULTS = """# Benchmarks: tinyforge on the four emulated boards, beside TFLite Micro + CMSIS-NN

Made by `{command}` on {date} (QEMU `-icount shift=0` with the project's instruction-count
plugin; one inference; instruction counts are deterministic and repeat exactly). Models: the
four MLPerf Tiny int8 reference `.tflite` files (`kws`, `vww`, `ic`, `ad`; double rounding,
bit-exact with TFLite Micro) and the four zoo models exported from PyTorch with seeded weights
(`zoo-*`; single rounding). TFLite Micro + CMSIS-NN figures: ../shared/anchors/README.md
(same emulator, M55 = an547 and M4 = an386 only; for the zoo models they are the matching
MLPerf model's).

Columns: instructions for one `tf_model_run` (TF_PERF region 0), per multiply-accumulate of
the model; RAM = the planned arena per memory region (what `tinyforge compile` prints before
any firmware exists) plus the measured stack high-water of the run (painted stack); TFLM's
arena excludes its stack too. The default plan calls each kernel once on whole tensors; the
"smallest plan" column is `tinyforge compile --min-ram --kernels ref` (in place by rows,
portable kernels without scratch: the least RAM, much slower; docs/memory-planning.md). Flash from the linker map: the runtime (loader, validator,
executor, op glue) and the kernels the model links, the generated model (program + weights),
and the rest (C library, startup, semihosting I/O of the test firmware). TFLM's "flash without
model" counts its core, kernels, CMSIS-NN and C library: compare it with runtime + kernels +
other; the last column compares whole images, TFLM's with the `.tflite` file it embeds. The
"other" part here is mostly the test firmware's printf and semihosting I/O (newlib-nano).

{table}

## Per op type (M55 and M4)

{ops_table}
"""


if __name__ == "__main__":
    sys.exit(main())
