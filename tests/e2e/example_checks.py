"""The examples (issue #8) on a small fixed test subset, with the committed float weights:
what tests/e2e/test_example_*.py share (one example per file, so that pytest-xdist's
--dist loadfile runs them on different workers).

For each task: export with calibration (training data), then on every sample of the subset
tinyforge's host predictions must equal PyTorch's converted int8 model's, and int8 accuracy
(PyTorch and tinyforge) must be within 0.5 percentage points of float accuracy.
The full runs (data generation, training, the whole test sets) are `make examples`.

Data: keyword spotting synthesises its subset on the fly (espeak-ng + sox, a few seconds);
image classification reads Debian's dataset-fashion-mnist. Every stage is checked; missing
tools or data skip (which fails the run in CI: conftest.py), the board stage after the host
stages have been checked.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

from common import evaluation  # noqa: E402

TARGET_PP = evaluation.TARGET_PP
# The subsets also run on the emulated Cortex-M55 (one firmware boot each): without the Arm
# toolchain or QEMU the host stages are checked, then the test skips (a failure in CI).
BOARD_TOOLS = {"arm-none-eabi-gcc": "gcc-arm-none-eabi libnewlib-arm-none-eabi "
               "libstdc++-arm-none-eabi-newlib", "qemu-system-arm": "qemu-system-arm"}
MISSING = [f"{tool} (apt-get install {pkg})" for tool, pkg in BOARD_TOOLS.items()
           if shutil.which(tool) is None]
ON_BOARD = not MISSING


@pytest.fixture(autouse=True)
def one_torch_thread():
    """One intra-op thread: PyTorch's int8 reference runs one sample at a time, and with two
    threads on a busy 2-core machine it spends 30x longer spinning than computing."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def check(rep: evaluation.Report, min_float: float, max_gap_pp: float = TARGET_PP) -> None:
    """The issue's acceptance on a subset: host == PyTorch int8 (QDQ graph), device runtime
    == lowered program (bit for bit), every int8 stage within ``max_gap_pp`` (0.5) pp of
    float."""
    s = rep.stages
    print("\n" + evaluation.table(rep))
    assert s["float"].accuracy >= min_float, "float accuracy too low: weights or data broken?"
    host = s["host_qdq"]
    assert host.accuracy is not None, host.note
    assert host.agree_with_torch_int8 == rep.samples, (
        f"tinyforge and PyTorch int8 disagree on {rep.samples - host.agree_with_torch_int8} "
        f"of {rep.samples} samples")
    for key in ("host_qdq", "host_lowered", "host_runtime"):
        assert s[key].accuracy is not None, f"{key}: {s[key].note}"
        assert s[key].batch_checked, f"{key}: batched run differs from batch-1 runs"
    assert s["host_runtime"].equal_to_lowered == rep.samples, \
        "the device runtime's outputs differ from the lowered program's"
    if ON_BOARD:
        board = s["board"]
        assert board.accuracy is not None, board.note
        assert board.equal_to_lowered == rep.samples, (
            f"the emulated board's outputs differ from the host's on "
            f"{rep.samples - board.equal_to_lowered} of {rep.samples} samples")
        assert board.accuracy == s["host_lowered"].accuracy
        assert rep.instructions and rep.peak_ram and rep.flash
    gap = evaluation.gap_pp(rep)
    assert gap is not None and gap <= max_gap_pp + 1e-9, f"int8 is {gap:.2f} pp from float"
    if not ON_BOARD:
        pytest.skip(f"host stages checked; board stage not run: {', '.join(MISSING)} missing")
