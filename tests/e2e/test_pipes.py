"""Pipes (docs/decisions.md 84, runtime/include/tinyforge/pipe.h): with `--min-ram` the
planner runs chains of streamed convs and depthwise convs interleaved by rows, so the
tensors between them exist only as windows of rows (patch-based execution of the first
layers). On MLPerf Tiny's vww (a 48x48x16 pointwise output that used to exist whole):
  * the report shows the pipe and the plan is smaller than with `--no-pipes` (the other
    MLPerf Tiny models plan none, and their tensors are checked the same way);
  * every tensor the pipe program holds whole equals, byte for byte after each op, the one
    of the whole-tensor program (`--speed-over-ram`, no streaming), on the host runtime
    (the dumps after every op, placed by the report's buffers);
  * the default plan's pipes too (within its budget);
  * on the an547 and an386 the firmware equals the host run (board_run); RAM printed.
On ic (ResNet-8) a pipe ends in a residual block's ADD, which reads the pipe's own input
again (docs/decisions.md 99): conv -> conv -> add, the block's output over its input.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tinyforge import board as tfboard
from tinyforge import board_run
from tinyforge import reference_models

from e2e_util import board_environment, run_cli


def _compile(cli, model, out, *extra):
    proc = run_cli(cli, "compile", model, "--target", "an547", "-o", out, "--json", *extra)
    return json.loads(proc.stdout), json.loads((Path(out) / "report.json").read_text())


def _outputs_after_ops(report, dump_dir: Path):
    """Tensor name -> bytes right after the op that wrote it (whole tensors only)."""
    buffers = {b["name"]: b for b in report["buffers"]}
    got = {}
    for i, op in enumerate(report["ops"]):
        arena = (dump_dir / f"{i:03d}_0.bin").read_bytes()
        for t in op["outputs"]:
            b = buffers.get(t["name"])
            if b is not None and b["bytes"] >= t["bytes"]:
                got[t["name"]] = arena[b["offset"]:b["offset"] + t["bytes"]]
    return got


MODELS = ["kws", "vww", "ic", "ad"]
PIPED = {"vww", "ic"}  # where the an547's plans have pipes, default and --min-ram (2026-12-04)
RESIDUAL = {"ic"}  # ... one ending in a residual block's ADD (docs/decisions.md 99)


def _model(name):
    if reference_models.models_dir() is None:
        pytest.skip(f"MLPerf Tiny models missing: {reference_models.HOW_TO}")
    return reference_models.path(name)


@pytest.mark.parametrize("mode", ["--min-ram", "default"])
@pytest.mark.parametrize("name", MODELS)
def test_pipe_tensors_equal_whole_tensor_execution(cli, name, mode, tmp_path):
    model = _model(name)
    args = [] if mode == "default" else [mode]
    plan, report = _compile(cli, model, tmp_path / "pipe", *args)
    whole_plan, whole = _compile(cli, model, tmp_path / "whole", "--speed-over-ram")
    members = [op for op in report["ops"] if "pipe_stage" in op]
    assert bool(members) == (name in PIPED), [op["name"] for op in members]
    assert all(op["in_place"] == "stream-rows" for op in members)
    adds = [op for op in members if op["type"] == "qadd"]
    assert bool(adds) == (name in RESIDUAL), [op["name"] for op in members]
    assert all(op["pipe_stage"] == op["pipe_stages"] - 1 for op in adds)  # last members
    windows = {op["outputs"][0]["name"] for op in members if "window_bytes" in op}
    assert all(op["window_bytes"] < op["outputs"][0]["bytes"]
               for op in members if "window_bytes" in op)
    if mode == "--min-ram":  # a pipe is kept only where it lowers the plan
        nopipe, _ = _compile(cli, model, tmp_path / "nopipe", "--min-ram", "--no-pipes")
        assert plan["ram_bytes"] <= nopipe["ram_bytes"]
        if members:
            assert plan["ram_bytes"] < nopipe["ram_bytes"]
    print(f"{name} an547 {mode}: arena {plan['ram_bytes']:,} B ({len(members)} ops in "
          f"pipes), whole tensors {whole_plan['ram_bytes']:,} B")
    shape = report["inputs"][0]["shape"]
    rng = np.random.default_rng(5)
    for k in range(2):
        x = rng.integers(-128, 128, size=shape, dtype=np.int8)
        np.save(tmp_path / "x.npy", x)
        dumps = {}
        for run in ("pipe", "whole"):
            d = tmp_path / f"dump_{run}_{k}"
            run_cli(cli, "run", tmp_path / run / "program.bin", "-i", tmp_path / "x.npy",
                    "-o", tmp_path / f"y_{run}.npy", "--dump-dir", d)
            dumps[run] = d
        a = _outputs_after_ops(report, dumps["pipe"])
        b = _outputs_after_ops(whole, dumps["whole"])
        compared = 0
        for t, v in b.items():
            if t in windows:
                continue
            assert t in a, f"{t} is not held whole by the pipe program"
            assert a[t] == v, f"input {k}: {t} differs from whole-tensor execution"
            compared += 1
        assert compared == len(b) - len(windows & set(b)) and compared > 0
        assert np.array_equal(np.load(tmp_path / "y_pipe.npy"), np.load(tmp_path / "y_whole.npy"))


@pytest.mark.parametrize("name,board", [("vww", "an547"), ("vww", "an386"), ("ic", "an547")])
def test_pipe_on_board_equals_host(cli, name, board):
    model = _model(name)
    with board_environment(cli):
        o = board_run.run_model(model, board)
        p = tfboard.profile(model, board)
    print(f"{name} {board} default plan: {p['insns_per_inference']:,} instructions, RAM "
          f"{p['ram']['arena_total']:,} + stack {p['ram']['stack']:,} B")
    assert o.bit_exact, o.mismatch
