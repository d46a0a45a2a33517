"""ATen ops written with the graph file's ops at export (tinyforge.op_rewrite, docs/decisions.md
91): reflect / replicate / circular pads, flip, roll, stack, channel_shuffle, vector norms,
var / std, max / min of two tensors, one-sided clamps, expand_as, average pools counting their
padding. Each after a conv, exported
with PT2E, compiled, and compared with PyTorch's converted int8 model op by op (every op alone
within 1 LSB); two run on the an547 and the an386, board == host."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import tinyforge

from e2e_util import compare_with_pytorch, random_inputs, run_cli, save_npy


class Fn(nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x)


# name -> (module, graph ops the rewrite must leave in the exported graph)
OPS = {
    "reflect_pad": (nn.ReflectionPad2d((2, 1, 1, 2)), {"gather"}),
    "replicate_pad": (nn.ReplicationPad2d(2), {"gather"}),
    "circular_pad": (Fn(lambda x: F.pad(x, (1, 1, 2, 0), mode="circular")), {"gather"}),
    "flip": (Fn(lambda x: torch.flip(x, [2, 3])), {"gather"}),
    "roll": (Fn(lambda x: torch.roll(x, (1, -2), (3, 2))), {"gather"}),
    "stack": (Fn(lambda x: torch.stack([x, x * 0.5], 2).flatten(1, 2)), {"cat"}),
    "channel_shuffle": (nn.ChannelShuffle(2), {"transpose"}),
    "normalize": (Fn(lambda x: F.normalize(x, dim=1)), {"square", "sum", "unary"}),
    "l1_norm": (Fn(lambda x: x / (1 + torch.linalg.vector_norm(x, 1, dim=1, keepdim=True))),
                {"sum", "unary"}),
    "inf_norm": (Fn(lambda x: x * torch.linalg.vector_norm(x, float("inf"), dim=(2, 3),
                                                           keepdim=True)), {"amax"}),
    "std": (Fn(lambda x: x - x.std(dim=1, keepdim=True)), {"square", "mean"}),
    "var": (Fn(lambda x: x * x.var((2, 3), keepdim=True, correction=0)), {"square", "mean"}),
    "max_min": (Fn(lambda x: torch.max(x, 0.5 * x) + torch.min(x, -x)), {"maximum", "minimum"}),
    "clamp_min_max": (Fn(lambda x: x.clamp_min(-0.2).clamp_max(0.6)), {"hardtanh"}),
    "expand_as": (Fn(lambda x: x.sum(1, keepdim=True).expand_as(x) * 0.1 + x), {"cat"}),
    # PyTorch's default count_include_pad=True with padding (Inception's 3x3 stride-1 pools)
    "avg_pool_pad": (nn.AvgPool2d(3, 1, 1), {"pad", "avg_pool2d"}),
    "avg_pool_pad_ceil": (nn.AvgPool2d(3, 2, 1, ceil_mode=True), {"pad", "avg_pool2d"}),
    "avg_pool1d_pad": (Fn(lambda x: F.avg_pool1d(x.flatten(2), 4, 2, 2)), {"pad", "avg_pool2d"}),
    # adaptive max pools to sizes not dividing the input (6x7 -> 4x3, 42 -> 5): PyTorch's
    # overlapping bins, per cell a slice and amax
    "adaptive_max_bins": (nn.AdaptiveMaxPool2d((4, 3)), {"slice", "amax", "cat"}),
    "adaptive_max1d_bins": (Fn(lambda x: F.adaptive_max_pool1d(x.flatten(2), 5)),
                            {"slice", "amax", "cat"}),
    "adaptive_max_none": (nn.AdaptiveMaxPool2d((None, 2)), {"slice", "amax", "cat"}),
    # min reductions as -amax(-x); max over everything
    "amin_min": (Fn(lambda x: x.amin(1, keepdim=True) + x.min(3, keepdim=True)[0]
                    + torch.min(x) + torch.max(x)), {"amax", "mul"}),
    # nn.LPPool (p = 2): PyTorch's own decomposition, its sign(a) * relu(abs(a)) being a
    "lp_pool2d": (nn.LPPool2d(2, 2), {"avg_pool2d", "binary"}),
    "lp_pool1d": (Fn(lambda x: F.lp_pool1d(x.flatten(2), 2, 3)), {"avg_pool2d", "binary"}),
    # a rank-0 activation (a full reduction) broadcast against the rank-4 map
    "minus_full_mean": (Fn(lambda x: x - x.mean()), {"mean", "sub"}),
    # hand-written activations: a leaky ReLU, clamps either way round
    "where_leaky": (Fn(lambda x: torch.where(x > 0, x, 0.2 * x)), {"leaky_relu"}),
    "where_clamps": (Fn(lambda x: torch.where(x < 0.5, x, 0.5)
                        + torch.where(0 <= x, x, torch.zeros_like(x))), {"hardtanh", "relu"}),
}


class ConvOp(nn.Module):
    def __init__(self, op: nn.Module) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.op = op

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.op(self.conv(x))


def _export(name: str, tmp_path):
    torch.manual_seed(3)
    shape = (1, 3, 6, 7)
    calib = [(x * 2,) for x in random_inputs(shape, 4, seed=1)]
    return tinyforge.export(ConvOp(OPS[name][0]).eval(), calib[0], calibration=calib,
                            path=tmp_path / f"{name}.tfg"), shape


@pytest.mark.parametrize("name", list(OPS))
def test_rewritten_op_within_1_lsb(name, cli, tmp_path):
    res, shape = _export(name, tmp_path)
    types = {op["type"] for op in res.graph["ops"]}
    assert OPS[name][1] <= types, types
    run_cli(cli, "compile", res.path, "--target", "an547", "-o", tmp_path / "c")
    if OPS[name][1] == {"gather"}:  # along H / W: gathers of NHWC rows, no transposes
        text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
        assert "= gather(" in text and "= transpose(" not in text, text
    x = save_npy(tmp_path / "x.npy", random_inputs(shape, 1, seed=2)[0] * 2)
    report = compare_with_pytorch(cli, res.path, x, tmp_path)
    assert report["first_divergence"] is None, report
    for row in report["ops"]:
        if row["alone_max_diff_lsb"] is not None:
            assert row["alone_max_diff_lsb"] <= 1.0 + 1e-6, row


def test_unsupported_forms_named(tmp_path):
    """A roll of the flattened tensor and a vector norm of order 3 are refused, each named
    with its reason in one error."""
    model = ConvOp(Fn(lambda x: torch.roll(x, 1) + torch.linalg.vector_norm(x, 3, dim=1,
                                                                            keepdim=True))).eval()
    x = torch.randn(1, 3, 6, 7)
    with pytest.raises(tinyforge.UnsupportedOpError) as e:
        tinyforge.export(model, (x,), path=tmp_path / "m.tfg")
    assert "roll without dims" in str(e.value) and "order 3.0" in str(e.value), str(e.value)


def test_other_where_named(tmp_path):
    """A where of another form is refused with the forms taken."""
    model = ConvOp(Fn(lambda x: torch.where(x > 0.1, x, 0.2 * x))).eval()
    with pytest.raises(tinyforge.UnsupportedOpError, match="torch.where: only"):
        tinyforge.export(model, (torch.randn(1, 3, 6, 7),), path=tmp_path / "m.tfg")


@pytest.mark.parametrize("board", ["an547", "an386"])
def test_pads_and_flip_on_board(board, board_env, tmp_path):
    from tinyforge import board as tfboard  # noqa: PLC0415

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReflectionPad2d(1), nn.ReLU(),
                          Fn(lambda x: torch.flip(x, [3])), nn.ReplicationPad2d((0, 1, 1, 0)),
                          nn.Conv2d(8, 4, 3)).eval()
    calib = [(x,) for x in random_inputs((1, 3, 12, 12), 4, seed=1)]
    res = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / "pads.tfg")
    assert tfboard.run_model(res.path, board, seed=1).bit_exact


class TemporalBlock(nn.Module):
    """The TCN paper's block: weight-normalized dilated causal Conv1d layers, the padding's
    tail cut off with a negative slice end ("chomp"), a residual."""

    def __init__(self, cin: int, cout: int, d: int, new_api: bool) -> None:
        super().__init__()
        wn = nn.utils.parametrizations.weight_norm if new_api else nn.utils.weight_norm
        self.cut = 2 * d
        self.c1 = wn(nn.Conv1d(cin, cout, 3, padding=self.cut, dilation=d))
        self.c2 = wn(nn.Conv1d(cout, cout, 3, padding=self.cut, dilation=d))
        self.down = nn.Conv1d(cin, cout, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.c1(x)[:, :, :-self.cut])
        y = torch.relu(self.c2(y)[:, :, :-self.cut])
        return torch.relu(y + self.down(x))


@pytest.mark.parametrize("new_api", [True, False])
def test_weight_norm_tcn_within_1_lsb(new_api, cli, tmp_path):
    """Weights computed from parameters in forward (weight normalization, either API) fold
    to constants at export; a negative slice end counts from the dim's end."""
    torch.manual_seed(0)
    model = nn.Sequential(TemporalBlock(3, 8, 1, new_api), TemporalBlock(8, 8, 2, new_api)).eval()
    shape = (1, 3, 40)
    calib = [(x,) for x in random_inputs(shape, 4, seed=1)]
    res = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / "tcn.tfg")
    types = [op["type"] for op in res.graph["ops"]]
    assert types.count("conv2d") == 6 and "slice" in types, types
    x = save_npy(tmp_path / "x.npy", random_inputs(shape, 1, seed=2)[0])
    report = compare_with_pytorch(cli, res.path, x, tmp_path)
    assert report["first_divergence"] is None, report


class CausalAttention(nn.Module):
    """nanoGPT's attention without the fused kernel: a causal mask buffer, masked_fill with
    -inf, softmax."""

    def __init__(self, d: int = 16, heads: int = 2, t: int = 8) -> None:
        super().__init__()
        self.qkv, self.proj, self.heads = nn.Linear(d, 3 * d), nn.Linear(d, d), heads
        self.register_buffer("bias", torch.tril(torch.ones(t, t)).view(1, 1, t, t))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                   for z in self.qkv(x).split(c, dim=2))
        att = (q @ k.transpose(-2, -1)) * (c // self.heads) ** -0.5
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf")).softmax(dim=-1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, t, c))


def test_causal_masked_fill_attention_within_1_lsb(cli, tmp_path):
    torch.manual_seed(0)
    shape = (1, 8, 16)
    calib = [(x,) for x in random_inputs(shape, 4, seed=1)]
    res = tinyforge.export(CausalAttention().eval(), calib[0], calibration=calib,
                           path=tmp_path / "attn.tfg")
    types = [op["type"] for op in res.graph["ops"]]
    assert "softmax" in types and "add" in types, types
    x = save_npy(tmp_path / "x.npy", random_inputs(shape, 1, seed=2)[0])
    report = compare_with_pytorch(cli, res.path, x, tmp_path)
    assert report["first_divergence"] is None, report


def test_masked_fill_elsewhere_named(tmp_path):
    """A fill other than -inf before a softmax stays refused, with the reason."""
    model = ConvOp(Fn(lambda x: x.masked_fill(torch.ones(1, 8, 6, 7).tril() == 0, 0.0))).eval()
    with pytest.raises(tinyforge.UnsupportedOpError, match="masked_fill other than -inf"):
        tinyforge.export(model, (torch.randn(1, 3, 6, 7),), path=tmp_path / "m.tfg")
