"""Attention from PyTorch: F.scaled_dot_product_attention (no mask, causal, a constant
additive or boolean mask), nn.MultiheadAttention (batch_first both ways, need_weights False
and True, masks built in forward) and a 2-layer nn.TransformerEncoder (seq 32, d_model 64, 4 heads, ffn 128, norm
first or last, relu or gelu) with a learned positional embedding and a Linear head:
exported with PT2E (attention.decompose_attention), compiled, and compared with PyTorch's
converted int8 model (`compare --against pytorch`): every op fed PyTorch's inputs within
1 LSB. The encoder once on an547 and an386: board == host bit for bit, and its profile.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import tinyforge
from tinyforge.attention import MASK_VALUE
from tinyforge.families import TransformerEncoderClassifier as Encoder

from e2e_util import compare_with_pytorch, random_inputs, run_cli, save_npy

T, D = Encoder.SEQ, Encoder.D_MODEL


class Sdpa(nn.Module):
    def __init__(self, mask: torch.Tensor | None = None, causal: bool = False) -> None:
        super().__init__()
        self.register_buffer("mask", mask)
        self.causal = causal

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=self.mask, is_causal=self.causal)


class Mha(nn.Module):
    def __init__(self, batch_first: bool, need_weights: bool, mask: str | None = None) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(32, 4, batch_first=batch_first)
        self.need_weights = need_weights
        causal = {None: None, "bool": torch.ones(16, 16, dtype=torch.bool).triu(1),
                  "float": nn.Transformer.generate_square_subsequent_mask(16)}[mask]
        self.register_buffer("mask", causal)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=self.need_weights, attn_mask=self.mask)[0]


def _calib(shapes, n=8):
    return [tuple(random_inputs(s, 1, seed=10 * i + j)[0] for i, s in enumerate(shapes))
            for j in range(n)]


def _export(model, shapes, path):
    torch.manual_seed(0)
    calib = _calib(shapes)
    return tinyforge.export(model.eval(), calib[0], calibration=calib, path=path)


def _check_within_1_lsb(cli, res, shapes, tmp_path) -> dict:
    xs = [save_npy(tmp_path / f"x{i}.npy", random_inputs(s, 1, seed=100 + i)[0])
          for i, s in enumerate(shapes)]
    report = compare_with_pytorch(cli, res.path, xs, tmp_path)
    # (an op reading a tensor the program stores in another element order, e.g. behind a
    # head-merge transpose, is compared in the whole run only)
    alone = [row for row in report["ops"] if row["alone_max_diff_lsb"] is not None]
    assert len(alone) >= 0.5 * len(report["ops"]), report["ops"]
    for row in alone:
        assert row["alone_max_diff_lsb"] <= 1.0 + 1e-6, row
    return report


def _causal() -> torch.Tensor:
    return torch.ones(T, T, dtype=torch.bool).tril()


SDPA_CASES = {
    "none": lambda: Sdpa(),
    "causal": lambda: Sdpa(causal=True),
    "additive": lambda: Sdpa(mask=torch.randn(T, T, generator=torch.Generator().manual_seed(3))),
    "bool": lambda: Sdpa(mask=_causal()),
}


@pytest.mark.parametrize("mask", list(SDPA_CASES))
def test_sdpa_within_1_lsb_of_pytorch(mask, cli, tmp_path):
    shapes = [(1, 2, T, 16)] * 3
    res = _export(SDPA_CASES[mask](), shapes, tmp_path / "sdpa.tfg")
    text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
    assert len(re.findall(r"= qbmm\(", text)) == 2, text
    assert len(re.findall(r"= qsoftmax\(", text)) == 1, text
    assert len(re.findall(r"= qadd\(", text)) == (0 if mask == "none" else 1), text
    _check_within_1_lsb(cli, res, shapes, tmp_path)


def test_masked_scores_get_no_weight(cli, tmp_path):
    """The causal mask on the compiled program: the upper triangle's probabilities are 0
    (the int8 output's zero point), as PyTorch's -inf gives."""
    shapes = [(1, 1, T, 16)] * 3

    class Probs(nn.Module):  # the attention weights themselves (v = identity)
        def __init__(self):
            super().__init__()
            self.register_buffer("eye", torch.eye(T).reshape(1, 1, T, T))

        def forward(self, q, k):
            return F.scaled_dot_product_attention(q, k, self.eye, is_causal=True)

    torch.manual_seed(0)
    calib = _calib(shapes[:2])
    res = tinyforge.export(Probs().eval(), calib[0], calibration=calib, path=tmp_path / "p.tfg")
    xs = [save_npy(tmp_path / f"x{i}.npy", random_inputs(s, 1, seed=100 + i)[0])
          for i, s in enumerate(shapes[:2])]
    run_cli(cli, "run", res.path, "--input", xs[0], "--input", xs[1],
            "--output", tmp_path / "y.npy")
    y = np.load(tmp_path / "y.npy")[0, 0]
    upper = y[np.triu_indices(T, 1)]
    assert np.abs(upper).max() < 1.5 / 256, upper  # at most a rounding step of the matmul
    assert np.abs(y.sum(-1) - 1).max() < 0.1, y.sum(-1)


def test_additive_mask_values():
    from tinyforge.attention import additive_mask  # noqa: PLC0415

    m = additive_mask(torch.tensor([[True, False]]), False, 1, 2)
    assert m.tolist() == [[0.0, MASK_VALUE]]
    m = additive_mask(torch.tensor([[0.5, float("-inf")]]), False, 1, 2)
    assert m.tolist() == [[0.5, MASK_VALUE]]
    assert additive_mask(None, True, 2, 2).tolist() == [[0.0, MASK_VALUE], [0.0, 0.0]]


MHA_CASES = [(True, False, None), (False, True, None), (True, True, "bool"),
             (False, False, "float")]


@pytest.mark.parametrize("batch_first,need_weights,mask", MHA_CASES)
def test_multihead_attention_within_1_lsb_of_pytorch(batch_first, need_weights, mask, cli,
                                                     tmp_path):
    """need_weights=True is bmm / baddbmm + softmax in torch.export's graph; a mask (boolean,
    or float with -inf: nn.MultiheadAttention's zeros_like + masked_fill_ on the buffer)
    folds into the additive constant."""
    shapes = [(1, 16, 32) if batch_first else (16, 1, 32)]
    res = _export(Mha(batch_first, need_weights, mask), shapes, tmp_path / "mha.tfg")
    text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
    assert len(re.findall(r"= qbmm\(", text)) == 2, text
    assert len(re.findall(r"= qadd\(", text)) == (0 if mask is None else 1), text
    _check_within_1_lsb(cli, res, shapes, tmp_path)


@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_at_batch_3(batch_first, cli, tmp_path):
    """Batch > 1: nn.MultiheadAttention's packed in-projection ends in a `contiguous` the
    exporter drops, and the head split `view`s a slice of it: a reshape then, or the
    exporter's float run fails on the strided tensor (docs/decisions.md 51)."""
    shapes = [(3, 16, 32) if batch_first else (16, 3, 32)]
    res = _export(Mha(batch_first, False), shapes, tmp_path / "mha3.tfg")
    _check_within_1_lsb(cli, res, shapes, tmp_path)


class MaskInForward(nn.Module):
    """nn.MultiheadAttention with its mask computed in forward from the sequence length."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.attn = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x):
        t = x.shape[1]
        if self.kind == "triu":  # ones -> triu: a boolean causal mask
            mask = torch.ones(t, t, dtype=torch.bool).triu(1)
        else:  # arange comparisons: a band of width 4 around the diagonal
            i = torch.arange(t)
            mask = (i[None, :] - i[:, None]).abs() > 3
        return self.attn(x, x, x, attn_mask=mask, need_weights=False)[0]


@pytest.mark.parametrize("kind", ["triu", "arange"])
def test_mask_built_in_forward(kind, cli, tmp_path):
    """A mask computed from shapes in forward (factories, triu, comparisons, and the
    in-place masked_fill_ of nn.MultiheadAttention) folds to the additive constant."""
    shapes = [(1, 16, 32)]
    res = _export(MaskInForward(kind), shapes, tmp_path / "mask.tfg")
    text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
    assert len(re.findall(r"= qadd\(", text)) == 1, text
    _check_within_1_lsb(cli, res, shapes, tmp_path)


def test_encoder_mask_without_is_causal_names_the_fix():
    """nn.TransformerEncoder tests a mask for causality with a data-dependent branch that
    torch.export cannot trace: one line saying what to pass."""

    class Enc(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
            self.enc = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)

        def forward(self, x):
            t = x.shape[1]
            return self.enc(x, mask=torch.triu(torch.full((t, t), float("-inf")), 1))

    with pytest.raises(tinyforge.ExportError, match=r"transformer\.py:\d+: .*is_causal=True") as e:
        tinyforge.export(Enc().eval(), (torch.randn(1, 16, 32),))
    assert "\n" not in str(e.value)


ENCODER_CASES = [(False, "relu"), (True, "gelu")]


@pytest.mark.parametrize("norm_first,activation", ENCODER_CASES,
                         ids=[f"{'pre' if n else 'post'}-{a}" for n, a in ENCODER_CASES])
def test_transformer_encoder_within_1_lsb_of_pytorch(norm_first, activation, cli, tmp_path):
    res = _export(Encoder(norm_first, activation), [(1, T, D)], tmp_path / "enc.tfg")
    text = run_cli(cli, "compile", res.path, "--print-after=dce").stdout
    assert len(re.findall(r"= qbmm\(", text)) == 4, text
    assert len(re.findall(r"= qlayernorm\(", text)) == 4, text
    report = _check_within_1_lsb(cli, res, [(1, T, D)], tmp_path)
    assert report["ops"][-1]["max_diff_lsb"] <= 1.0 + 1e-6, report["ops"][-1]  # the logits


def test_float_graph_matches_the_module(cli, tmp_path):
    """Float export of the decomposition: the compiled float program equals the module
    (the causal mask's -inf is MASK_VALUE: exp(-16) is below float32's rounding here)."""
    torch.manual_seed(0)
    model = Encoder(True, "gelu").eval()
    x = torch.randn(1, T, D)
    res = tinyforge.export(model, (x,), path=tmp_path / "f.tfg")
    run_cli(cli, "run", res.path, "--input", save_npy(tmp_path / "x.npy", x),
            "--output", tmp_path / "y.npy")
    with torch.no_grad():
        ref = model(x).numpy()
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(1, 8, 6, 5), (2, 7, 9)])
def test_softmax_along_any_axis(shape, cli, tmp_path):
    """softmax over every axis but the last (NCHW dim 2 is not the last in NHWC either):
    within 1 LSB of PyTorch; the device runtime (program, kernels over the innermost dim
    behind the layout pass's transposes) equals the lowered graph on the host."""

    class Soft(nn.Module):
        def forward(self, x):
            return torch.cat([torch.softmax(x * (d + 1.0), dim=d) for d in range(1, len(shape))], 1)

    res = _export(Soft(), [shape], tmp_path / "soft.tfg")
    _check_within_1_lsb(cli, res, [shape], tmp_path)
    lowered = tmp_path / "soft.int8.tfg"
    text = run_cli(cli, "compile", res.path, "-o", lowered, "--print-after=dce").stdout
    assert re.search(r"transpose\(.*# softmax.*axis_last", text), text
    info = json.loads(run_cli(cli, "inspect", "--json", lowered).stdout)
    x = np.random.default_rng(5).integers(-128, 128, size=info["inputs"][0]["shape"], dtype=np.int8)
    np.save(tmp_path / "q.npy", x)
    run_cli(cli, "run", lowered, "-i", tmp_path / "q.npy", "-o", tmp_path / "host.npy")
    run_cli(cli, "run", res.path, "--runtime", "-i", tmp_path / "q.npy", "-o", tmp_path / "rt.npy")
    assert np.array_equal(np.load(tmp_path / "host.npy"), np.load(tmp_path / "rt.npy"))


def test_boolean_mask_input_is_refused():
    class M(nn.Module):
        def forward(self, q, mask):
            return F.scaled_dot_product_attention(q, q, q, attn_mask=mask)

    with pytest.raises(tinyforge.UnsupportedOpError, match="boolean attn_mask"):
        tinyforge.export(M(), (torch.randn(1, 2, 4, 8), torch.ones(4, 4, dtype=torch.bool)))


def test_transformer_encoder_on_boards_equals_host(board_env, tmp_path):
    """One short QEMU run per board (an547: M55 / MVE, an386: M4 / DSP): board == host bit
    for bit; the an547 profile per op type."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    res = _export(Encoder(False, "gelu"), [(1, T, D)], tmp_path / "enc.tfg")
    for board in ("an547", "an386"):
        assert tfboard.run_model(res.path, board, seed=1).bit_exact, board
    prof = tfboard.profile(res.path, "an547", seed=1)
    by_type: dict[str, int] = {}
    for op in prof["ops"]:
        by_type[op["type"]] = by_type.get(op["type"], 0) + op["insns"]
    total = sum(by_type.values())
    split = sorted(by_type.items(), key=lambda kv: -kv[1])
    print(f"2-layer encoder on an547: {total} instructions per inference; " +
          ", ".join(f"{t} {n} ({100 * n / total:.1f} %)" for t, n in split))
    assert by_type.get("qbmm", 0) > 0 and by_type.get("qsoftmax", 0) > 0, by_type
