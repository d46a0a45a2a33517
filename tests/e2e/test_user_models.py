"""Models written the way TinyML users write them, none from the team (issues 14 and 15,
docs/decisions.md 78): a TCN (dilated causal Conv1d, F.pad on the left, residual),
depthwise-separable Conv1d, a CNN with Flatten + Dropout and three heads, a small ViT (patch
conv, a cls token concatenated from a Parameter, learned positions, TransformerEncoder with
norm_first and GELU), torch.nn.functional ops used directly, einsum as a projection,
x.view(x.size(0), -1), LSTM over [T, B, F], a 2-layer bidirectional GRU, padding='same' with
a depth multiplier, Upsample + PixelShuffle, CBAM attention (adaptive max + average pools,
max over channels), GroupNorm and InstanceNorm (2-D and 1-D), LayerNorm over [C, H, W].

Each is exported int8 with PT2E (seeded weights, calibrated on random data), compiled, and
compared op by op with PyTorch's int8 reference (tinyforge.interp): no divergence, every op
alone within 1 LSB (docs/numerics.md); the float export equals the module. The first of its
kind (CBAM's max pools, the group / instance norms, the einsum projection) also runs on the
an547: board == host, bit for bit.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import tinyforge
from tinyforge.errors import UnsupportedOpError

from e2e_util import assert_within_1_lsb, compare_with_pytorch, random_inputs


class TcnBlock(nn.Module):
    """Two dilated causal convs (left padding) and a residual."""

    def __init__(self, c: int, d: int) -> None:
        super().__init__()
        self.d = d
        self.c1 = nn.Conv1d(c, c, 3, dilation=d)
        self.c2 = nn.Conv1d(c, c, 3, dilation=d)

    def forward(self, x):
        y = F.relu(self.c1(F.pad(x, (2 * self.d, 0))))
        return F.relu(x + self.c2(F.pad(y, (2 * self.d, 0))))


class Tcn(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inp = nn.Conv1d(3, 16, 1)
        self.blocks = nn.Sequential(*[TcnBlock(16, d) for d in (1, 2, 4)])
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        return self.fc(self.blocks(self.inp(x))[:, :, -1])


class DsConv1d(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        layers, c = [], 4
        for co in (16, 32):
            layers += [nn.Conv1d(c, c, 5, padding=2, groups=c), nn.BatchNorm1d(c), nn.ReLU(),
                       nn.Conv1d(c, co, 1), nn.BatchNorm1d(co), nn.ReLU()]
            c = co
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(32, 6)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool1d(self.features(x), 1).squeeze(-1))


class MultiHead(nn.Module):
    """Flatten + Dropout, then a class head, a sigmoid head and an MLP head."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3), nn.ReLU(),
            nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.5))
        self.cls = nn.Linear(400, 10)
        self.box = nn.Linear(400, 2)
        self.reg = nn.Sequential(nn.Linear(400, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        z = self.features(x)
        return self.cls(z), torch.sigmoid(self.box(z)), self.reg(z)


class TinyVit(nn.Module):
    def __init__(self, d: int = 32) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, d, 8, 8)
        self.cls = nn.Parameter(torch.randn(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, 17, d) * 0.1)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        p = self.patch(x).flatten(2).transpose(1, 2)
        p = torch.cat([self.cls.expand(x.shape[0], -1, -1), p], 1) + self.pos
        return self.head(self.norm(self.encoder(p))[:, 0])


class Functional(nn.Module):
    """F.relu6, F.hardtanh, F.interpolate (bilinear x2), mean over (2, 3) keepdim,
    F.adaptive_avg_pool1d, torch.flatten(x, 1)."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1)
        self.c3 = nn.Conv1d(8, 8, 3)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y = F.hardtanh(self.c2(F.relu6(self.c1(x))), -2.0, 2.0)
        y = F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)
        y = y * torch.sigmoid(y.mean(dim=(2, 3), keepdim=True))
        z = F.adaptive_avg_pool1d(self.c3(y.flatten(2)), 2)
        return self.fc(torch.flatten(z, 1))


class EinsumProjection(nn.Module):
    """A 1x1 projection written as einsum over NCHW ('bchw,cd->bhwd'), then x.view(N, -1)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, 2)
        self.w = nn.Parameter(torch.randn(8, 6) * 0.3)
        self.fc = nn.Linear(7 * 7 * 6, 3)

    def forward(self, x):
        z = torch.einsum("bchw,cd->bhwd", F.relu(self.conv(x)), self.w)
        return self.fc(z.reshape(z.size(0), -1))


class ViewSize(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, 2)
        self.fc = nn.Linear(8 * 7 * 7, 3)

    def forward(self, x):
        y = F.relu(self.conv(x))
        return self.fc(y.view(y.size(0), -1))


class TimeMajorLstm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(6, 16)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[-1])


class BiGru2(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gru = nn.GRU(6, 12, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(24, 3)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.fc(out[:, -1])


class SameDepthMultiplier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Conv2d(4, 8, 3, padding="same")
        self.dw = nn.Conv2d(8, 16, 3, padding="same", groups=8)  # depth multiplier 2
        self.c5 = nn.Conv2d(16, 8, (5, 3), padding="same", dilation=(1, 2))

    def forward(self, x):
        return self.c5(F.relu(self.dw(F.relu(self.c(x)))))


class UpsamplePixelShuffle(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Conv2d(3, 16, 3, padding=1)
        self.up = nn.Upsample(scale_factor=2)
        self.shuffle = nn.PixelShuffle(2)
        self.c2 = nn.Conv2d(4, 4, 3, padding=1)
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)

    def forward(self, x):
        return self.up2(self.c2(self.shuffle(self.up(F.relu(self.c(x))))))


class Cbam(nn.Module):
    """Channel attention (shared MLP over the average- and max-pooled features) and spatial
    attention (a 7x7 conv over the channel mean and max)."""

    def __init__(self, c: int = 16, r: int = 4) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.mlp = nn.Sequential(nn.Conv2d(c, c // r, 1), nn.ReLU(), nn.Conv2d(c // r, c, 1))
        self.spatial = nn.Conv2d(2, 1, 7, padding=3)
        self.fc = nn.Linear(c, 4)

    def forward(self, x):
        x = F.relu(self.conv(x))
        gate = self.mlp(F.adaptive_avg_pool2d(x, 1)) + self.mlp(F.adaptive_max_pool2d(x, 1))
        x = x * torch.sigmoid(gate)
        s = torch.cat([x.mean(1, keepdim=True), x.max(1, keepdim=True)[0]], 1)
        x = x * torch.sigmoid(self.spatial(s))
        return self.fc(x.mean((2, 3)))


class Norm(nn.Module):
    """conv -> norm -> ReLU -> conv; a max pool to 2x2 and a 1-D adaptive max pool after."""

    def __init__(self, norm: nn.Module) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.norm = norm
        self.out = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        y = self.out(F.relu(self.norm(self.conv(x))))
        return F.adaptive_max_pool2d(y, 2), F.adaptive_max_pool1d(y.flatten(2), 4)


class Norm1d(nn.Module):
    """GroupNorm and InstanceNorm1d on [N, C, L], then x.max(dim=-1).values."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(3, 8, 3, padding=1)
        self.group = nn.GroupNorm(4, 8)
        self.instance = nn.InstanceNorm1d(8)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y = self.instance(F.relu(self.group(self.conv(x))))
        return self.fc(y.max(dim=-1).values)


class LayerNormChw(nn.Module):
    """nn.LayerNorm over [C, H, W] (several trailing dims), nn.AdaptiveMaxPool2d((1, 1))."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.norm = nn.LayerNorm([8, 6, 6])
        self.pool = nn.AdaptiveMaxPool2d((1, 1))
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.norm(self.conv(x))), 1))


class ClampOneBound(nn.Module):
    """torch.clamp with only a max, and with a min other than 0 (F.interpolate to a size,
    F.max_pool2d with ceil_mode around them)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y = torch.clamp(self.conv(x), max=0.5)
        y = F.interpolate(y, size=(9, 7), mode="bilinear")
        y = torch.clamp(self.conv2(F.max_pool2d(y, 2, ceil_mode=True)), min=-0.25)
        return self.fc(y.amax((2, 3)))


class LogSoftmaxHead(nn.Module):
    """A classifier trained with NLLLoss: F.log_softmax at the end."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


class ArgmaxHead(nn.Module):
    """torch.max(x, 1) with both outputs: the score and the class index."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        score, index = torch.max(self.fc(x), 1)
        return score, index


def _norms(model: nn.Module) -> nn.Module:
    with torch.no_grad():
        for m in model.modules():
            affine = (nn.GroupNorm, nn.InstanceNorm2d, nn.LayerNorm)
            if isinstance(m, affine) and m.weight is not None:
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.3, 0.3)
            if isinstance(m, nn.InstanceNorm2d) and m.running_mean is not None:
                m.running_mean.uniform_(-0.3, 0.3)
                m.running_var.uniform_(0.5, 2.0)
    return model


# (name, model, input shapes, op types the float export must contain)
CASES = [
    ("tcn", Tcn, [(1, 3, 64)], {"pad", "conv2d", "add"}),
    ("dsconv1d", DsConv1d, [(1, 4, 64)], {"conv2d", "mean"}),
    ("multihead", MultiHead, [(1, 1, 28, 28)], {"max_pool2d", "linear", "sigmoid"}),
    ("vit", TinyVit, [(1, 3, 32, 32)], {"layer_norm", "gelu", "softmax", "cat"}),
    ("functional", Functional, [(1, 3, 8, 8)], {"resize", "hardtanh", "mean"}),
    ("einsum_projection", EinsumProjection, [(1, 3, 16, 16)], {"matmul", "transpose"}),
    ("view_size", ViewSize, [(1, 3, 16, 16)], {"reshape", "linear"}),
    ("lstm_time_major", TimeMajorLstm, [(10, 1, 6)], {"linear", "sigmoid", "tanh"}),
    ("gru_2_layers_bidirectional", BiGru2, [(1, 8, 6)], {"linear", "sigmoid", "tanh"}),
    ("same_depth_multiplier", SameDepthMultiplier, [(1, 4, 12, 12)], {"conv2d"}),
    ("upsample_pixel_shuffle", UpsamplePixelShuffle, [(1, 3, 8, 8)], {"resize", "transpose"}),
    ("cbam", Cbam, [(1, 3, 16, 16)], {"amax", "mean", "sigmoid", "mul"}),
    ("group_norm", lambda: _norms(Norm(nn.GroupNorm(2, 8))), [(1, 3, 8, 8)],
     {"layer_norm", "max_pool2d"}),
    ("instance_norm", lambda: _norms(Norm(nn.InstanceNorm2d(8, affine=True))), [(1, 3, 8, 8)],
     {"layer_norm"}),
    ("instance_norm_running", lambda: _norms(Norm(nn.InstanceNorm2d(
        8, affine=True, track_running_stats=True))), [(1, 3, 8, 8)], {"conv2d"}),
    ("max_with_indices", ArgmaxHead, [(1, 8)], {"amax", "argmax"}),
    ("norms_1d", lambda: _norms(Norm1d()), [(1, 3, 32)], {"layer_norm", "amax"}),
    ("log_softmax", LogSoftmaxHead, [(1, 16)], {"amax", "sub", "unary", "sum"}),
    ("clamp_one_bound", ClampOneBound, [(1, 3, 6, 6)], {"hardtanh", "resize"}),
    ("layer_norm_chw", lambda: _norms(LayerNormChw()), [(1, 3, 6, 6)], {"layer_norm", "amax"}),
]
BOARD = ["cbam", "group_norm", "einsum_projection"]


def _inputs(shapes, count, seed):
    per = [random_inputs(s, count, seed + i) for i, s in enumerate(shapes)]
    return [tuple(p[k] for p in per) for k in range(count)]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("user_models")
    cache: dict[str, tuple] = {}

    def get(name: str):
        if name not in cache:
            _, make, shapes, _ = next(c for c in CASES if c[0] == name)
            torch.manual_seed(0)
            model = make().eval()
            calib = _inputs(shapes, 8, seed=7)
            res = tinyforge.export(model, calib[0], calibration=calib, path=out / f"{name}.tfg")
            cache[name] = (model, res.path, _inputs(shapes, 1, seed=3)[0])
        return cache[name]

    return get


@pytest.mark.parametrize("name,make,shapes,types", CASES, ids=[c[0] for c in CASES])
def test_float_export_equals_module(name, make, shapes, types):
    torch.manual_seed(0)
    model = make().eval()
    xs = _inputs(shapes, 1, seed=3)[0]
    with torch.no_grad():
        res = tinyforge.export(model, xs)
        got, want = res.reference(*xs), model(*xs)
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    for g, w in zip(got, want):
        torch.testing.assert_close(g.to(w.dtype), w, rtol=1e-4, atol=1e-5)
    found = {op["type"] for op in res.graph["ops"]}
    assert types <= found, found


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_int8_within_1_lsb_of_pytorch(name, exported, cli, tmp_path):
    _, graph, xs = exported(name)
    paths = []
    for i, x in enumerate(xs):
        paths.append(tmp_path / f"x{i}.npy")
        np.save(paths[-1], x.numpy())
    assert_within_1_lsb(compare_with_pytorch(cli, graph, paths, tmp_path))


@pytest.mark.parametrize("name", BOARD)
def test_board_equals_host_an547(name, exported, board_env):
    from tinyforge import board as tfboard  # noqa: PLC0415

    _, graph, _ = exported(name)
    assert tfboard.run_model(graph, "an547", seed=1).bit_exact


class Indices(nn.Module):
    def forward(self, x):
        return F.adaptive_max_pool2d(x, 1, return_indices=True)[1].float()


class Diagonal(nn.Module):
    def forward(self, x):
        return torch.einsum("bii->bi", x)


@pytest.mark.parametrize("model,shape,what", [
    (Indices, (1, 4, 6, 6), "aten.adaptive_max_pool2d.default at test_user_models.py:"),
    (Diagonal, (1, 4, 4), "aten.einsum.default at test_user_models.py:"),
])
def test_out_of_scope_is_one_line(model, shape, what):
    x = torch.randn(shape)
    with pytest.raises(UnsupportedOpError) as e:
        tinyforge.export(model().eval(), (x,), calibration=[(x,)])
    msg = str(e.value)
    assert what in msg and "\n" not in msg, msg
    assert e.value.exit_code == 2
