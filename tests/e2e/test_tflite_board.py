"""The four MLPerf Tiny reference .tflite models on the emulated Cortex-M4 (an386, DSP kernels)
and Cortex-M55 (an547, MVE kernels): every golden case of each model, stacked into one
firmware run, must give TensorFlow Lite Micro's output bytes (../shared/golden/mlperf-tiny,
read in place). The board driver also checks each output against the host runtime.

Skips without the Arm toolchain, QEMU or the shared goldens.
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from tinyforge import board as tfboard

from tflite_util import MODELS, available, manifest, read_bin

pytestmark = [
    pytest.mark.skipif(not available(), reason="../shared MLPerf Tiny goldens missing"),
    pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None
                       or shutil.which("qemu-system-arm") is None,
                       reason="arm-none-eabi-gcc or qemu-system-arm missing"),
]

MODEL_NAMES = ["kws", "vww", "ic", "ad"]


def _entry(name: str) -> dict:
    return next(m for m in manifest()["models"] if m["model"] == name)


@pytest.mark.parametrize("board", ["an386", "an547"])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_goldens_on_board(name, board):
    entry = _entry(name)
    shape = entry["input"]["shape"]
    x = np.concatenate([read_bin(c["input_file"], shape) for c in entry["cases"]])
    want = np.stack([read_bin(c["output_file"], entry["output"]["shape"])
                     for c in entry["cases"]])
    outcome = tfboard.run_model(MODELS / entry["model_file"], board, [x])
    assert outcome.samples == len(entry["cases"])
    assert outcome.bit_exact, outcome.mismatch
    got = outcome.outputs[0].reshape(want.shape)
    for k, c in enumerate(entry["cases"]):
        assert np.array_equal(got[k], want[k]), f"{name} case {c['case']} on {board}"
