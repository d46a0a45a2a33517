"""Every generated kernel file matches its generator: each kernels/**/gen_*.py regenerates
its output in memory and `--check` fails when the committed copy differs (edit the
generator, then rerun it: `python kernels/<dir>/gen_<name>.py`)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATORS = sorted((ROOT / "kernels").rglob("gen_*.py"))


def test_generators_found():
    names = {p.relative_to(ROOT).as_posix() for p in GENERATORS}
    assert {"kernels/common/gemm/gen_mve_asm.py", "kernels/dwconv/gen_mve_asm.py"} <= names


@pytest.mark.parametrize("gen", GENERATORS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_generated_file_is_up_to_date(gen: Path):
    proc = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr or proc.stdout
