"""What a model may return: its own input among its outputs (an autoencoder's or a
pre-processing model's pass-through), and the refusal of one tensor returned twice."""
from __future__ import annotations

import pytest
import torch
from torch import nn

import tinyforge

from e2e_util import compare_with_pytorch, random_inputs, run_cli, save_npy


class PassThrough(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.conv(x), x


def _export(model: nn.Module, tmp_path):
    torch.manual_seed(2)
    calib = [(x,) for x in random_inputs((1, 3, 6, 6), 8, seed=1)]
    return tinyforge.export(model.eval(), calib[0], calibration=calib, path=tmp_path / "m.tfg")


def test_input_returned_as_output(cli, tmp_path, board_env):
    """The returned input is the int8 input tensor itself (--io=int8: the program's output 1
    is its input 0; it was an internal error in io-edges before): compiles, within 1 LSB of
    PyTorch, and the board equals the host."""
    torch.manual_seed(0)
    res = _export(PassThrough(), tmp_path)
    run_cli(cli, "compile", res.path, "--target", "an547", "-o", tmp_path / "c")
    x = save_npy(tmp_path / "x.npy", random_inputs((1, 3, 6, 6), 1, seed=2)[0])
    report = compare_with_pytorch(cli, res.path, x, tmp_path)
    assert report["first_divergence"] is None, report
    from tinyforge import board as tfboard  # noqa: PLC0415

    assert tfboard.run_model(res.path, "an547", seed=3).bit_exact


def test_same_tensor_returned_twice_is_refused(tmp_path):
    class Twice(PassThrough):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            y = self.conv(x)
            return y, y

    with pytest.raises(ValueError, match=r"outputs 0 and 1 are the same tensor .*return it once"):
        _export(Twice(), tmp_path)
