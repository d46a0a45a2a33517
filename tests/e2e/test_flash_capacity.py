"""Constants that exceed a board's flash are refused at compile time like RAM (issue 14):
`compile --target` names the region, the bytes needed and missing, and exits 2, instead of
a bare linker failure at the firmware build."""
from __future__ import annotations

import os
import re

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")

from e2e_util import find_cli, run_cli  # noqa: E402
import tflite_cases  # noqa: E402  (tests/kernels)


def _dense(n: int) -> bytes:
    """One Dense n -> n: n * n int8 weights."""
    inp = tf.keras.Input((n,), batch_size=1)
    m = tf.keras.Model(inp, tf.keras.layers.Dense(n)(inp))
    rng = np.random.default_rng(0)

    def representative():
        for _ in range(4):
            yield [rng.normal(size=(1, n)).astype(np.float32)]

    return tflite_cases.to_int8(m, representative)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("flash")
    paths = {}
    for n in (1800, 2900):  # 3.2 MB of weights; 8.4 MB (> the an547's 8 MiB QSPI)
        paths[n] = d / f"dense{n}.tflite"
        paths[n].write_bytes(_dense(n))
    return paths


@pytest.mark.parametrize("n,board,region", [(2900, "an547", "qspi"),
                                            (2900, "an386", "ssram1"),
                                            (1800, "an386", None),
                                            (2900, "an385", "ssram1")])
def test_constants_must_fit_flash(tmp_path, models, n, board, region):
    proc = run_cli(find_cli(), "compile", models[n], "--target", board, "-o", tmp_path / "out",
                   check=False)
    if region is None:
        assert proc.returncode == 0, proc.stderr
        return
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    m = re.search(r"does not fit: region '(\w+)' needs ([\d,]+) bytes but has ([\d,]+) "
                  r"\(([\d,]+) bytes missing\)", proc.stderr)
    assert m, proc.stderr
    need, have, missing = (int(g.replace(",", "")) for g in m.groups()[1:])
    assert m.group(1) == region
    assert need >= n * n and need - have == missing > 0
    assert not (tmp_path / "out" / "program.bin").exists()
