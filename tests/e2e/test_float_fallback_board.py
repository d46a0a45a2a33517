"""The mixed int8 / float32 test model (float_fallback_model.py) on the emulated boards: the
float kernels (kernels/f32, soft-float on the M3, FPU on the M4 and M55) must give the host's
bits exactly (the board driver compares every output with the host runtime). One short run
per board."""
from __future__ import annotations

import shutil

import pytest

from tinyforge import board as tfboard

from float_fallback_model import export_mixed

pytestmark = pytest.mark.skipif(
    shutil.which("arm-none-eabi-gcc") is None or shutil.which("qemu-system-arm") is None,
    reason="arm-none-eabi-gcc or qemu-system-arm missing")


@pytest.mark.parametrize("board", ["an547", "an386", "an385"])
def test_mixed_model_board_equals_host(board, tmp_path):
    _, q = export_mixed(tmp_path / "mixed.tfg")
    outs = tfboard.run(q.path, board, seed=1)  # raises BoardError when board != host
    assert outs and outs[0].size == 5
