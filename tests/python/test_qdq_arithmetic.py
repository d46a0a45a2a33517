"""The format's quantize/dequantize formulas are bit-exact with PyTorch's decomposed ops.

docs/graph-format.md: q = clamp(round_half_even(x * float32(1/scale)) + zp, qmin, qmax),
x = (float32(q) - zp) * float32(scale). The C++ side implements exactly these; tinyforge.interp
(numpy float32) is checked here against torch.ops.quantized_decomposed, and a float64
variant is shown to differ, so the test would catch a wrong precision.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from tinyforge.interp import dequantize, quantize

import tinyforge  # noqa: F401  (registers quantized_decomposed ops via torchao)

qd = torch.ops.quantized_decomposed
SCALES = [0.0253062155097723, 0.007780384737998247, 1 / 256, 1 / 128, 0.1, 3.1e-5, 0.0123]


def _inputs(scale: float, g: torch.Generator) -> torch.Tensor:
    x = torch.randn(20000, generator=g) * scale * 60
    ties = (torch.randint(-300, 300, (2000,), generator=g) + 0.5) * scale  # x/scale near .5
    edges = torch.tensor([0.0, -0.0, 1e30, -1e30, scale * 127.5, scale * -128.5])
    return torch.cat([x, ties, edges]).float()


def _tensor(scale: list[float], zp: list[int], axis: int | None, qmin: int, qmax: int, dtype: str) -> dict:
    return {"dtype": dtype, "quant": {"scale": scale, "zero_point": zp, "axis": axis,
                                      "qmin": qmin, "qmax": qmax}}


@pytest.mark.parametrize("scale", [float(np.float32(s)) for s in SCALES])
@pytest.mark.parametrize("zp", [-128, -10, 0, 46, 127])
def test_per_tensor_bit_exact(scale: float, zp: int) -> None:
    x = _inputs(scale, torch.Generator().manual_seed(int(scale * 1e6) + zp))
    t = _tensor([scale], [zp], None, -128, 127, "int8")
    q = qd.quantize_per_tensor(x, scale, zp, -128, 127, torch.int8)
    np.testing.assert_array_equal(quantize(x.numpy(), t), q.numpy())
    d = qd.dequantize_per_tensor(q, scale, zp, -128, 127, torch.int8)
    np.testing.assert_array_equal(dequantize(q.numpy(), t).view(np.int32), d.numpy().view(np.int32))


def test_float64_arithmetic_would_differ() -> None:
    """x * (1/scale) in float64 rounds differently from PyTorch for some inputs."""
    g = torch.Generator().manual_seed(0)
    diffs = 0
    for s in SCALES:
        scale = float(np.float32(s))
        x = _inputs(scale, g)
        q = qd.quantize_per_tensor(x, scale, 0, -128, 127, torch.int8).numpy()
        q64 = np.clip(np.rint(x.numpy().astype(np.float64) / scale), -128, 127).astype(np.int8)
        diffs += int((q != q64).sum())
    assert diffs > 0


def test_per_channel_dequantize_bit_exact() -> None:
    """Per-channel: (q - zp) in integers, converted to float32 (rounding above 2^24), times
    float32 scale[c] along the axis."""
    g = torch.Generator().manual_seed(1)
    scales = (torch.rand(6, generator=g) * 1e-3 + 1e-6).float()
    zps = torch.zeros(6, dtype=torch.int64)
    w = torch.randint(-127, 128, (6, 3, 2, 2), generator=g, dtype=torch.int8)
    t = _tensor(scales.tolist(), [0] * 6, 0, -127, 127, "int8")
    want = qd.dequantize_per_channel(w, scales, zps, 0, -127, 127, torch.int8)
    np.testing.assert_array_equal(dequantize(w.numpy(), t).view(np.int32), want.numpy().view(np.int32))

    b = torch.tensor([16777217, -2147483647, 123456789, 5, 0, 33554435], dtype=torch.int32)
    tb = _tensor(scales.tolist(), [0] * 6, 0, -(2**31), 2**31 - 1, "int32")
    want = qd.dequantize_per_channel(b, scales, zps, 0, -(2**31), 2**31 - 1, torch.int32)
    np.testing.assert_array_equal(dequantize(b.numpy(), tb).view(np.int32), want.numpy().view(np.int32))
    exact = (b.numpy().astype(np.float64) * scales.numpy().astype(np.float64)).astype(np.float32)
    assert (exact.view(np.int32) != want.numpy().view(np.int32)).any()


def test_per_channel_quantize_bit_exact() -> None:
    g = torch.Generator().manual_seed(2)
    scales = (torch.rand(4, generator=g) * 0.02 + 1e-4).float()
    x = (torch.randn(3, 4, 50, generator=g) * 1.5).float()
    t = _tensor(scales.tolist(), [0] * 4, 1, -127, 127, "int8")
    want = qd.quantize_per_channel(x, scales, torch.zeros(4, dtype=torch.int64), 1, -127, 127, torch.int8)
    np.testing.assert_array_equal(quantize(x.numpy(), t), want.numpy())
