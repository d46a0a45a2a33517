#!/usr/bin/env python3
"""Kernel benchmark: instructions per call and per MAC of every kernel variant on the zoo /
MLPerf Tiny layer shapes, per board, beside __ref and TFLite Micro + CMSIS-NN's per-op figure.

    python benchmarks/kernels/run.py [--board an547] [--filter conv] [--json]

Builds benchmarks/kernels (kernel_bench firmware, rows in *_bench.cc) in build/k1-bench-<board>
(configured once, reused), runs it under QEMU with the instruction-count plugin
(targets/qemu/run.py, events on) and pairs each `BENCH` line the firmware prints with its
TF_PERF region-0 call. The TFLM column is the whole TFLM op (CMSIS-NN kernel plus TFLM's
per-op dispatch, a few hundred instructions) from ../shared/anchors/tflm-cmsisnn-per-op-insns.txt:
m55 for an547, m4 for an386 (none for the other boards).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tinyforge import qemu

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ROOT / "targets"
ANCHORS = ROOT.parent / "shared" / "anchors" / "tflm-cmsisnn-per-op-insns.txt"
ANCHOR_CORE = {"an547": "m55", "an386": "m4"}


def load_runner():
    return qemu


def build(board: str, build_root: Path) -> Path:
    bdir = build_root / f"k1-bench-{board}"
    if not (bdir / "CMakeCache.txt").exists():
        cfg = ["cmake", "-S", str(TARGETS), "-B", str(bdir), f"-DTINYFORGE_BOARD={board}",
               "-DTINYFORGE_FIRMWARE_DIRS=benchmarks/kernels", "-DTINYFORGE_TARGETS_TESTS=OFF"]
        if shutil.which("ninja"):
            cfg[1:1] = ["-G", "Ninja"]
        subprocess.run(cfg, check=True, capture_output=True, text=True)
    proc = subprocess.run(["cmake", "--build", str(bdir), "-j2", "--target", "kernel_bench"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(proc.stdout + proc.stderr)
    return bdir / "firmware" / "benchmarks_kernels" / "kernel_bench.elf"


def load_anchors(core: str | None) -> dict[str, int]:
    """'kws:0' -> instructions of that TFLM op on `core`."""
    if core is None or not ANCHORS.is_file():
        return {}
    out: dict[str, int] = {}
    model = None
    for line in ANCHORS.read_text().splitlines():
        m = re.match(r"#\s*(\w+)\s+(\w+):", line)
        if m:
            model = m.group(2) if m.group(1) == core else None
            continue
        m = re.match(r"\s*(\d+)\s+\w+\s+(\d+)", line)
        if m and model:
            out[f"{model}:{m.group(1)}"] = int(m.group(2))
    return out


def run(board: str, filter_: str | None, build_root: Path) -> list[dict]:
    elf = build(board, build_root)
    runner = load_runner()
    args = [filter_] if filter_ else []
    res = runner.run(elf, board=board, args=args, timeout=600.0, events=True)
    if res.exit_code != 0:
        sys.exit(f"kernel_bench failed (exit {res.exit_code}):\n{res.stdout}\n{res.stderr}")
    if res.perf is None:
        sys.exit("no instruction counts: build the QEMU plugin (targets/README.md)")
    events = [e for e in res.perf.events if e.region == 0]
    lines = [l.split(" ", 6) for l in res.stdout.splitlines() if l.startswith("BENCH ")]
    if len(events) != len(lines):
        sys.exit(f"{len(lines)} BENCH lines but {len(events)} region-0 calls")
    rows = []
    for (_, op, symbol, isa, macs, anchor, label), ev in zip(lines, events):
        rows.append({"op": op, "symbol": symbol, "isa": isa, "macs": int(macs),
                     "anchor": None if anchor == "-" else anchor, "label": label,
                     "insns": ev.insns})
    return rows


def report(board: str, rows: list[dict]) -> None:
    anchors = load_anchors(ANCHOR_CORE.get(board))
    core = ANCHOR_CORE.get(board)
    print(f"# board {board}: instructions per call (insn/MAC); x ref = variant / __ref; "
          f"x tflm = variant / TFLM+CMSIS-NN op ({core or 'n/a'})")
    by_case: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        by_case.setdefault((r["op"], r["label"]), []).append(r)
    hdr = f"{'op':<7} {'shape':<38} {'MACs':>9} {'variant':<18} {'insns':>10} {'i/MAC':>7} " \
          f"{'x ref':>6} {'tflm':>9} {'x tflm':>7}"
    print(hdr)
    print("-" * len(hdr))
    for (op, label), rs in by_case.items():
        ref = next((r for r in rs if r["isa"] == "ref"), None)
        tflm = anchors.get(rs[0]["anchor"] or "")
        for r in rs:
            macs = max(r["macs"], 1)
            xr = f"{r['insns'] / ref['insns']:.3f}" if ref else "-"
            xt = f"{r['insns'] / tflm:.3f}" if tflm else "-"
            print(f"{op:<7} {label:<38} {r['macs']:>9} {r['symbol']:<18} {r['insns']:>10} "
                  f"{r['insns'] / macs:>7.3f} {xr:>6} {tflm if tflm else '-':>9} {xt:>7}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="an547", help="an385 | an386 | an505 | an547 | all")
    ap.add_argument("--filter", help="only rows whose op or label contains this (one word: the "
                    "firmware's semihosting command line splits on spaces)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--build-root", type=Path,
                    default=Path(os.environ.get("TINYFORGE_TARGETS_BUILD", ROOT / "build")))
    a = ap.parse_args()
    boards = ["an385", "an386", "an505", "an547"] if a.board == "all" else [a.board]
    result = {}
    for board in boards:
        rows = run(board, a.filter, a.build_root)
        result[board] = rows
        if not a.json:
            report(board, rows)
            print()
    if a.json:
        print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
