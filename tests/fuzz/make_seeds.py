"""Writes the .tfg and .npy seeds of tfg_fuzz and npy_fuzz into tests/fuzz/corpus/ (run by
hand after a format change: `.venv/bin/python tests/fuzz/make_seeds.py`).

.tfg: small graphs exported from PyTorch that together use every op type of the graph
file, float and quantized (QDQ, per-channel weights). .npy: every accepted dtype, a
scalar, rank 1 to 4, format versions 1.0 and 2.0. Kept small: libFuzzer mutates better
from short inputs (the fuzzers' -max_len is in tests/fuzz/CMakeLists.txt)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import tinyforge

CORPUS = Path(__file__).resolve().parent / "corpus"


class Convs(nn.Module):
    """conv2d (grouped, dilated), relu, hardtanh, pools, cat, add, mean, reshape, linear,
    sigmoid, tanh, softmax on a 1x2x6x6 input."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.dw = nn.Conv2d(4, 4, 3, padding=2, dilation=2, groups=4)
        self.fc = nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))
        y = torch.clamp(self.dw(y), -1.0, 1.0)
        a = F.max_pool2d(y, 2)
        b = F.avg_pool2d(y, 3, stride=2, padding=1, count_include_pad=False)
        z = torch.cat([a, b], dim=1)
        u = torch.sigmoid(z) + torch.tanh(z)
        m = u.mean(dim=(2, 3))
        return torch.softmax(self.fc(m.reshape(1, 8)), dim=-1)


class Mlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.relu6(self.fc1(x)))


def write_tfg() -> None:
    out = CORPUS / "tfg"
    out.mkdir(parents=True, exist_ok=True)
    for name, model, shape in (("convs", Convs(), (1, 2, 6, 6)), ("mlp", Mlp(), (1, 4))):
        torch.manual_seed(0)
        for p in model.parameters():
            nn.init.uniform_(p, -0.5, 0.5)
        model.eval()
        x = torch.randn(shape)
        tinyforge.export(model, x, path=out / f"{name}_float.tfg")
        calib = [(torch.randn(shape),) for _ in range(4)]
        tinyforge.export(model, x, calibration=calib, path=out / f"{name}_int8.tfg")


def npy_v2(a: np.ndarray) -> bytes:
    """Format 2.0 (u32 header length), which np.save writes only for huge headers."""
    header = repr({"descr": a.dtype.str, "fortran_order": False, "shape": a.shape}).encode()
    header += b" " * (-(12 + len(header) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(header)) + header + a.tobytes()


def write_npy() -> None:
    out = CORPUS / "npy"
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    arrays = {
        "f32_1x2x3x2": rng.standard_normal((1, 2, 3, 2)).astype("<f4"),
        "i8_7": rng.integers(-128, 128, 7).astype("i1"),
        "i32_2x3": rng.integers(-(2**31), 2**31, (2, 3)).astype("<i4"),
        "f32_scalar": np.array(1.5, dtype="<f4"),
    }
    for name, a in arrays.items():
        np.save(out / f"{name}.npy", a)
    (out / "i8_2x2_v2.npy").write_bytes(npy_v2(np.arange(4, dtype="i1").reshape(2, 2)))


if __name__ == "__main__":
    write_tfg()
    write_npy()
