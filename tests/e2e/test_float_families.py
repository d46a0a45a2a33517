"""Every exportable model runs as a float model (issue 16, docs/decisions.md 68): the breadth
families (tinyforge.families FAMILIES) and the sequence models (SEQUENCE) exported WITHOUT
calibration compile to float32 programs (fold-float lowers every op of a float graph) and
run with float input and output.

Checks, per model:
  * the device runtime (`tinyforge run program.bin`) equals the host executor of the lowered
    graph (`tinyforge run lowered.tfg`: the same __ref kernels) bit for bit;
  * both are within docs/numerics.md's float-model tolerance of PyTorch's float forward
    (the measured error is printed);
  * a few of them (MobileNetV3-Small: hardswish, hardsigmoid, mean; the transformer
    encoder: softmax, layer norm, matmul, gelu, transpose, slice; the U-Net: cat, resize)
    run on the emulated an547 (M55) and an386 (M4F), board == host bit for bit.
Models whose float export is refused say why (FLOAT_REFUSED; docs/limits.md).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import tinyforge
from tinyforge import board as tfboard
from tinyforge import families

from e2e_util import run_cli

# docs/numerics.md "Float models": |tinyforge - PyTorch| <= REL * max |PyTorch output|.
REL = 1e-5
NAMES = list(families.NAMES) + list(families.SEQUENCE_NAMES)
# ResNet-18's 11 MB of float weights do not fit the an547's flash: a larger memory map.
TARGET_ARGS = {"resnet18": ["--memory", "sram:16M@0x20000000:0,flash:16M@0x08000000"]}
BOARD_RUNS = [("mobilenet_v3_small", "an547"), ("mobilenet_v3_small", "an386"),
              ("transformer_encoder", "an547"), ("transformer_encoder", "an386"),
              ("unet", "an547"), ("op_mix", "an547")]


class OpMix(torch.nn.Module):
    """The float model ops no family above reaches (or not in these forms): pad, strided
    slice, leaky_relu, elu, selu, prelu, silu, mish, log_sigmoid, softplus, square,
    hardsigmoid, gelu (tanh), bilinear resize, sum,
    amax, mean, softmax over the channels, layer_norm without weight or bias, a matmul broadcasting one matrix,
    gather (index_select), argmax."""

    input_shapes = [(1, 4, 6, 8)]

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 6, 3, padding=1)
        self.prelu = torch.nn.PReLU(6)
        self.norm = torch.nn.LayerNorm(8, elementwise_affine=False)
        self.register_buffer("idx", torch.tensor([5, 0, 3]))
        self.w = torch.nn.Parameter(torch.randn(8, 5))

    def forward(self, x):
        y = self.prelu(self.conv(torch.nn.functional.pad(x, (1, 2, 0, 1))))  # [1,6,7,11]
        y = torch.nn.functional.leaky_relu(y[:, :, ::2, 1::3], 0.2)  # [1,6,4,4]
        y = torch.nn.functional.elu(y, 0.7) + torch.nn.functional.silu(y) + torch.ops.aten.elu(y, 1.67326, 1.0507, 1.0)  # selu's form
        y = y + torch.nn.functional.mish(y) * torch.nn.functional.logsigmoid(y) \
            + torch.nn.functional.softplus(y, beta=2.0) - 0.1 * torch.square(y)
        y = torch.softmax(y, dim=1) * torch.nn.functional.hardsigmoid(y)
        u = torch.nn.functional.interpolate(y, scale_factor=2.0, mode="bilinear")
        v = torch.nn.functional.interpolate(y, size=(7, 5), mode="bilinear", align_corners=True)
        s = u.sum(dim=(2, 3)) + y.amax(dim=(2, 3)) + v.mean(dim=(2, 3))  # [1,6]
        t = self.norm(torch.nn.functional.gelu(x[0], approximate="tanh"))  # [4,6,8]
        m = t @ self.w  # [4,6,5]: one [8,5] matrix for every batch
        e = torch.index_select(t, 1, self.idx)  # [4,3,8]
        return s, m, e.sum(dim=1, keepdim=True), torch.argmax(m, dim=2)


def _export(name: str, path):
    if name == "op_mix":
        torch.manual_seed(0)
        model, xs = OpMix().eval(), tuple(families.sample_inputs(OpMix.input_shapes, 1, 3)[0])
    else:
        f = families.get(name)
        model, xs = f.model, families.sample_inputs(f.input_shapes, 1, seed=3)[0]
    res = tinyforge.export(model, xs, path=path)
    assert res.kind == "float"
    with torch.no_grad():
        ref = model(*xs)
    refs = [ref] if isinstance(ref, torch.Tensor) else list(ref)
    return xs, [r.numpy() for r in refs]


@pytest.mark.parametrize("name", NAMES + ["op_mix"])
def test_float_family_runtime_equals_host_and_pytorch(name, cli, tmp_path):
    graph = tmp_path / f"{name}.tfg"
    xs, refs = _export(name, graph)
    ins = []
    for i, x in enumerate(xs):
        ins += ["--input", tmp_path / f"x{i}.npy"]
        a = x.numpy().astype(np.float32)  # rank-4 inputs and outputs are NHWC (default)
        np.save(ins[-1], np.ascontiguousarray(a.transpose(0, 2, 3, 1)) if a.ndim == 4 else a)
    lowered, out = tmp_path / f"{name}.lowered.tfg", tmp_path / "out"
    run_cli(cli, "compile", graph, "-o", lowered)
    run_cli(cli, "compile", graph, "--target", "cortex-m55",
            *TARGET_ARGS.get(name, []), "-o", out)
    h_outs = [tmp_path / f"h{i}.npy" for i in range(len(refs))]
    r_outs = [tmp_path / f"r{i}.npy" for i in range(len(refs))]
    run_cli(cli, "run", lowered, *ins, *[a for p in h_outs for a in ("--output", p)])
    run_cli(cli, "run", out / "program.bin", *ins, *[a for p in r_outs for a in ("--output", p)])
    for ref, hp, rp in zip(refs, h_outs, r_outs):
        host, runtime = np.load(hp), np.load(rp)
        assert host.dtype == runtime.dtype
        assert np.array_equal(host.view(np.uint32), runtime.view(np.uint32))
        if ref.dtype == np.int64:  # argmax indices
            assert np.array_equal(runtime.reshape(ref.shape), ref)
            continue
        assert host.dtype == np.float32
        if ref.ndim == 4:
            n, c, h, w = ref.shape
            runtime = runtime.reshape(n, h, w, c).transpose(0, 3, 1, 2)
        err = float(np.max(np.abs(runtime.reshape(ref.shape) - ref)))
        scale = float(np.max(np.abs(ref)))
        print(f"{name}: max |tinyforge - pytorch| = {err:.3g} ({err / scale:.3g} of max |y|)")
        assert err <= REL * scale


@pytest.mark.parametrize("name,board", BOARD_RUNS)
def test_float_family_board_equals_host(name, board, board_env, tmp_path):
    graph = tmp_path / f"{name}.tfg"
    _export(name, graph)
    outs = tfboard.run(graph, board, seed=1)  # raises BoardError when board != host
    assert outs and outs[0].dtype == np.float32


class PadFirst(torch.nn.Module):
    """A pad reading the graph input: with --layout NCHW it reads the input's NHWC copy, so
    the layout pass renumbers its dims (it used to leave them as PyTorch's: a verifier error
    after the pass)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = self.conv(torch.nn.functional.pad(x, (1, 2, 0, 1)))  # [1, 4, 4, 7]
        return y + torch.softmax(x[:, :, :4, :], 1).sum(dim=1, keepdim=True)[..., :1]


def test_pad_on_an_nchw_edge_input(cli, tmp_path):
    model, x = PadFirst().eval(), torch.randn(1, 3, 5, 6)
    tinyforge.export(model, (x,), path=tmp_path / "m.tfg")
    np.save(tmp_path / "x.npy", x.numpy())
    run_cli(cli, "compile", tmp_path / "m.tfg", "--layout", "NCHW", "--target", "cortex-m55",
            "-o", tmp_path / "out")
    run_cli(cli, "run", tmp_path / "out" / "program.bin", "--input", tmp_path / "x.npy",
            "--output", tmp_path / "y.npy")
    with torch.no_grad():
        ref = model(x).numpy()
    y = np.load(tmp_path / "y.npy").reshape(ref.shape)
    assert float(np.max(np.abs(y - ref))) <= REL * float(np.max(np.abs(ref)))


@pytest.mark.parametrize("act", [torch.nn.Hardshrink(), torch.nn.Softplus(threshold=5.0)])
def test_float_model_refuses_what_the_float_kernels_do_not_compute(act, cli, tmp_path):
    """An int8 table (export with calibration) runs these; a float model is refused in one
    line naming the op, exit 2."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 1), act).eval()
    graph = tmp_path / "m.tfg"
    tinyforge.export(model, (torch.randn(1, 3, 4, 4),), path=graph)
    proc = run_cli(cli, "compile", graph, check=False)
    name = "hardshrink" if isinstance(act, torch.nn.Hardshrink) else "softplus"
    assert proc.returncode == 2 and name in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
