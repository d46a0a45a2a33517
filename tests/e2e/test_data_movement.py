"""Data-movement models from PyTorch, compiled for a board and run by the host runtime.

Each model is exported with PT2E (seeded weights and calibration), compiled with
`tinyforge compile --target an547` and its program.bin run by `tinyforge run`; the oracle is
PyTorch's converted (QDQ) module, compared on the int8 output grid (at most 1 LSB, docs/
numerics.md). The board runs of these models are in test_board.py.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

import tinyforge
from tinyforge.board_build import read_compiled

from e2e_util import export_quantized, random_inputs, run_cli


class LeNet(nn.Module):
    """conv -> pool -> conv -> pool -> flatten (NCHW order) -> linear -> linear."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(1, 6, 5)
        self.c2 = nn.Conv2d(6, 16, 5)
        self.f1 = nn.Linear(16 * 4 * 4, 32)
        self.f2 = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.max_pool2d(torch.relu(self.c1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.c2(x)), 2)
        x = torch.flatten(x, 1)
        return self.f2(torch.relu(self.f1(x)))


def _to_program(x: np.ndarray, spec) -> np.ndarray:
    """A float NCHW sample as the program input (int8, NHWC when rank 4)."""
    if x.ndim == 4 and tuple(spec.shape) != x.shape:
        x = x.transpose(0, 2, 3, 1)
    if spec.dtype.kind == "f":
        return x.astype(spec.dtype)
    q = np.round(x / spec.scale) + spec.zero_point
    return np.clip(q, -128, 127).astype(np.int8)


def host_vs_torch(cli: str, res: tinyforge.ExportResult, shape: tuple[int, ...], tmp_path: Path,
                  n: int = 3) -> int:
    """Compiles for the an547, runs n seeded inputs; returns the worst |int8 difference|."""
    out = tmp_path / "an547"
    run_cli(cli, "compile", res.path, "--target", "an547", "-o", out)
    compiled = read_compiled(out)
    (ispec,), (ospec,) = compiled.inputs, compiled.outputs
    worst = 0
    for k, x in enumerate(random_inputs(shape, n, seed=11)):
        xin = _to_program(x.numpy(), ispec)
        # The program's input grid: the reference sees the same (dequantized) values.
        xf = (xin.astype(np.float32) - ispec.zero_point) * ispec.scale if xin.dtype == np.int8 \
            else xin
        if xf.ndim == 4 and xf.shape != tuple(shape):
            xf = xf.transpose(0, 3, 1, 2)
        np.save(tmp_path / f"x{k}.npy", xin)
        run_cli(cli, "run", out / "program.bin", "-i", tmp_path / f"x{k}.npy", "-o",
                tmp_path / f"y{k}.npy")
        got = np.load(tmp_path / f"y{k}.npy")
        with torch.no_grad():
            ref = res.reference(torch.from_numpy(np.ascontiguousarray(xf))).numpy()
        if got.dtype == np.int8:
            ref_q = np.clip(np.round(ref / ospec.scale) + ospec.zero_point, -128, 127)
            if ref.ndim == 4 and got.shape != ref.shape:
                ref_q = ref_q.transpose(0, 2, 3, 1)
            assert got.shape == ref_q.shape
            worst = max(worst, int(np.max(np.abs(got.astype(np.int64) - ref_q.astype(np.int64)))))
        else:
            raise AssertionError(f"unexpected output dtype {got.dtype}")
    return worst


def test_lenet_flatten_into_linear(cli, tmp_path):
    """Flatten of a spatial map in NCHW order into a linear: the layout pass permutes the
    linear's weight columns (no transpose op is left; there is no runtime kernel for one)."""
    shape = (1, 1, 28, 28)
    res = export_quantized(LeNet(), shape, tmp_path / "lenet.tfg")
    assert host_vs_torch(cli, res, shape, tmp_path) <= 1
    lowered = run_cli(cli, "compile", res.path, "--print-after", "all").stdout
    assert "= transpose(" not in lowered.split("// ---- after")[-1]


def _lowered_ops(cli: str, graph: Path) -> list[str]:
    """The op types of the final lowered graph (`compile --print-after all`, last stage)."""
    text = run_cli(cli, "compile", graph, "--print-after", "all").stdout.split("// ---- after")[-1]
    return [line.split("= ", 1)[1].split("(")[0] for line in text.splitlines()
            if line.startswith("  %") and "= " in line and "(" in line.split("= ", 1)[1]]


def channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    """torchvision's ShuffleNetV2 channel shuffle, written the same way."""
    n, c, h, w = x.size()
    x = x.view(n, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(n, -1, h, w)


class Shuffle(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 1)
        self.head = nn.Conv2d(12, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(channel_shuffle(torch.relu(self.conv(x)), 3))


class ShuffleUnit(nn.Module):
    """A ShuffleNetV2 unit (stride 1): chunk the channels, convolve one half, concat,
    channel shuffle; then a strided slice, a select and a narrow before the head."""

    def __init__(self, c: int = 16) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.pw1 = nn.Conv2d(c // 2, c // 2, 1)
        self.dw = nn.Conv2d(c // 2, c // 2, 3, padding=1, groups=c // 2)
        self.pw2 = nn.Conv2d(c // 2, c // 2, 1)
        self.head = nn.Linear(c + 3 + 4 * 3, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem(x))
        a, b = x.chunk(2, dim=1)
        b = torch.relu(self.pw2(self.dw(torch.relu(self.pw1(b)))))
        y = channel_shuffle(torch.cat([a, b], dim=1), 2)        # [1, 16, 8, 8]
        p = torch.mean(y[:, :, ::3, 1::3], dim=(2, 3))           # [1, 16]
        q = torch.narrow(y, 1, 4, 3).mean(dim=(2, 3))            # [1, 3]
        r = y.select(2, 7)[:, :4, :3].flatten(1)                 # [1, 12]
        return self.head(torch.cat([p, q, r], dim=1))


class Permutes(nn.Module):
    """NCHW -> NHWC permute feeding a linear over channels, and a [N, C, L] transpose."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x)).permute(0, 2, 3, 1)  # [N, H, W, C]
        y = self.fc(y).reshape(1, 5 * 6, 7)                # [N, H*W... as a sequence]
        return y.transpose(1, 2).contiguous().view(1, 7, 30)


class ChannelsLastBlock(nn.Module):
    """ConvNeXt's block: depthwise 7x7, then permute(0, 2, 3, 1), LayerNorm and Linear layers
    over channels, a per-channel scale, permute(0, 3, 1, 2), a residual add."""

    def __init__(self, c: int = 12) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, c, 1)
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.ln = nn.LayerNorm(c)
        self.pw1 = nn.Linear(c, 4 * c)
        self.pw2 = nn.Linear(4 * c, c)
        self.gamma = nn.Parameter(torch.linspace(0.2, 1.0, c))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.pw2(nn.functional.gelu(self.pw1(self.ln(y))))
        return x + (self.gamma * y).permute(0, 3, 1, 2)


def test_channels_last_block_without_transposes(cli, tmp_path):
    """The permutes around a channels-last block cost nothing: the layout pass keeps the
    block's tensors in PyTorch's order ([N, H, W, C], the NHWC bytes the depthwise conv
    wrote), so no transpose is left and the per-channel scale is the fast gate multiply
    (docs/decisions.md 88); host within 1 LSB of PyTorch, `compare` finds no divergence."""
    shape = (1, 3, 6, 5)
    res = export_quantized(ChannelsLastBlock(), shape, tmp_path / "block.tfg")
    ops = _lowered_ops(cli, res.path)
    assert "transpose" not in ops and "qlayernorm" in ops
    assert host_vs_torch(cli, res, shape, tmp_path) <= 1
    x = random_inputs(shape, 1, seed=3)[0].numpy()
    np.save(tmp_path / "x.npy", x)
    out = run_cli(cli, "compare", res.path, "--against", "pytorch", "-i", tmp_path / "x.npy")
    assert "no divergence" in out.stdout
    rows = [line.split()[1] for line in out.stdout.splitlines() if line[:6].strip().isdigit()]
    assert {"ln", "pw1", "pw2"} <= set(rows), rows  # the block's tensors were compared


def test_channel_shuffle_is_one_transpose(cli, tmp_path):
    """view -> transpose -> view between the layout pass's NCHW transposes folds to one
    transpose of the NHWC data, run by the transpose kernel; host within 1 LSB of PyTorch."""
    shape = (1, 3, 6, 5)
    res = export_quantized(Shuffle(), shape, tmp_path / "shuffle.tfg")
    assert _lowered_ops(cli, res.path).count("transpose") == 1
    assert host_vs_torch(cli, res, shape, tmp_path) <= 1
    report = (tmp_path / "an547" / "report.json").read_text()
    assert "s8_transpose__mve" in report


def test_shuffle_unit(cli, tmp_path):
    """chunk / cat / shuffle / strided slice / select / narrow: host within 1 LSB of PyTorch."""
    shape = (1, 3, 8, 8)
    res = export_quantized(ShuffleUnit(), shape, tmp_path / "shuffle_unit.tfg")
    ops = _lowered_ops(cli, res.path)
    # One transpose for the shuffle; the select's rank-4 result reaches no spatial op, so it
    # stays in NCHW order and its reshape is a view (layout pass); the slices run the slice
    # kernel. The chunk of the stem conv's output is two convs (split-outputs).
    assert ops.count("transpose") == 1 and ops.count("slice") >= 4
    assert ops.count("qconv2d") == 4, ops
    assert host_vs_torch(cli, res, shape, tmp_path) <= 1


def test_permute_and_transpose(cli, tmp_path):
    shape = (1, 3, 6, 7)
    res = export_quantized(Permutes(), shape, tmp_path / "permutes.tfg")
    assert "transpose" in _lowered_ops(cli, res.path)
    assert host_vs_torch(cli, res, shape, tmp_path) <= 1
