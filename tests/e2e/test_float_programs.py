"""Float models (issue 16 part 2, docs/decisions.md 52): the four zoo models exported without
calibration compile to float32 programs (fconv2d, fdwconv2d, ffc, the float pools; fold-float)
and run with float input and output.

Checks, per model:
  * the device runtime (`tinyforge run program.bin`) equals the host executor of the lowered
    graph (`tinyforge run lowered.tfg`: the same f32 __ref kernels on separate buffers) bit
    for bit;
  * both are within docs/numerics.md's float-model tolerance of PyTorch's float forward;
  * on the emulated boards (an547: M55 with FPU, an386: M4 with FPU) the firmware equals the
    host runtime bit for bit (the board driver compares every output).
About 25 s with the board firmware trees built (build/boards, shared with the other board
tests; building one the first time takes a minute or two).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import tinyforge
from tinyforge import board as tfboard
from tinyforge import models

from e2e_util import random_inputs, randomize, run_cli

NAMES = list(models.NAMES)
# docs/numerics.md "Float models": |tinyforge - PyTorch| <= REL * max |PyTorch output|.
REL = 1e-5


def _export(name: str, path):
    model, shape = models.get(name)
    model = randomize(model, seed=1234)
    x = random_inputs(shape, 1, seed=7)[0]
    res = tinyforge.export(model, (x,), path=path)
    assert res.kind == "float"
    with torch.no_grad():
        ref = model(x).numpy()
    return x, ref


def _nhwc(x: torch.Tensor) -> np.ndarray:
    a = x.numpy().astype(np.float32)
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1)) if a.ndim == 4 else a


@pytest.mark.parametrize("name", NAMES)
def test_float_model_runtime_equals_host_and_pytorch(name, cli, tmp_path):
    graph = tmp_path / f"{name}.tfg"
    x, ref = _export(name, graph)
    np.save(tmp_path / "x.npy", _nhwc(x))
    lowered = tmp_path / f"{name}.lowered.tfg"
    run_cli(cli, "compile", graph, "-o", lowered)
    out = tmp_path / "out"
    summary = json.loads(run_cli(cli, "compile", graph, "--target", "cortex-m55", "-o", out,
                                 "--json").stdout)
    run_cli(cli, "run", lowered, "--input", tmp_path / "x.npy", "--output", tmp_path / "h.npy")
    run_cli(cli, "run", out / "program.bin", "--input", tmp_path / "x.npy", "--output",
            tmp_path / "r.npy")
    host, runtime = np.load(tmp_path / "h.npy"), np.load(tmp_path / "r.npy")
    assert host.dtype == np.float32 and runtime.dtype == np.float32
    assert np.array_equal(host.view(np.uint32), runtime.view(np.uint32))
    err = float(np.max(np.abs(runtime.reshape(ref.shape) - ref)))
    scale = float(np.max(np.abs(ref)))
    print(f"{name}: max |tinyforge - pytorch| = {err:.3g} ({err / scale:.3g} of max |y|), "
          f"arena {summary['ram_bytes']} B, flash {summary['flash']['total']} B")
    assert err <= REL * scale


def test_float_graph_no_float_refused(cli, tmp_path):
    graph = tmp_path / "ad.tfg"
    _export("fc_autoencoder", graph)
    proc = run_cli(cli, "compile", graph, "--no-float", check=False)
    assert proc.returncode == 2
    assert "float graph" in proc.stderr and "--no-float" in proc.stderr


@pytest.mark.parametrize("board", ["an547", "an386"])
@pytest.mark.parametrize("name", NAMES)
def test_float_model_board_equals_host(name, board, board_env, tmp_path):
    graph = tmp_path / f"{name}.tfg"
    _export(name, graph)
    outs = tfboard.run(graph, board, seed=1)  # raises BoardError when board != host
    assert outs and outs[0].dtype == np.float32
