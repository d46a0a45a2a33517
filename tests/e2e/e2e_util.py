"""Helpers for end-to-end tests: the `tinyforge` CLI and seeded zoo models."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]


def program_format_major() -> int:
    """The program format's major version, as runtime/include/tinyforge/program_format.h
    defines it (tests that forge or patch program headers use it)."""
    import re

    header = (ROOT / "runtime/include/tinyforge/program_format.h").read_text()
    return int(re.search(r"kVersionMajor = (\d+);", header).group(1))

# What a board run needs: (program, Debian package).
BOARD_TOOLS = (("arm-none-eabi-gcc", "gcc-arm-none-eabi"), ("qemu-system-arm", "qemu-system-arm"),
               ("ninja", "ninja-build"))


@contextlib.contextmanager
def board_environment(cli: str):
    """The board tools present (a skip otherwise, which CI turns into a failure) and the
    board driver (in-process, or exec'd by the CLI) using the CLI under test and this Python."""
    for tool, package in BOARD_TOOLS:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found (Debian: apt-get install {package})")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TINYFORGE_BIN", cli)
        mp.setenv("TINYFORGE_PYTHON", sys.executable)
        yield


def find_cli() -> str:
    env = os.environ.get("TINYFORGE_BIN")
    if env:
        return env
    found = shutil.which("tinyforge")
    if found:
        return found
    for cand in (ROOT / "build" / "tools" / "tinyforge" / "tinyforge",
                 ROOT / "build-dev" / "tools" / "tinyforge" / "tinyforge"):
        if cand.exists():
            return str(cand)
    pytest.skip("tinyforge CLI not built (run `make build`)")


def run_cli(cli: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"tinyforge {' '.join(map(str, args))} -> {proc.returncode}\n"
                             f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def randomize(model: torch.nn.Module, seed: int) -> torch.nn.Module:
    """Seeded random weights, and BatchNorm statistics far from identity so folding matters."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                fan_in = m.weight[0].numel()
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * (2.0 / fan_in) ** 0.5)
                if m.bias is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
            elif isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=g) * 0.2)
                m.running_var.copy_(torch.rand(n, generator=g) * 0.8 + 0.6)
                m.weight.copy_(torch.rand(n, generator=g) * 0.8 + 0.6)
                m.bias.copy_(torch.randn(n, generator=g) * 0.2)
    return model.eval()


def random_inputs(shape, count: int, seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=g) for _ in range(count)]


def save_npy(path: Path, t: torch.Tensor) -> Path:
    np.save(path, t.detach().numpy().astype(np.float32))
    return path


def compare_with_pytorch(cli: str, graph, inputs, tmp_path: Path) -> dict:
    """`tinyforge compare GRAPH --against pytorch --json` on the .npy `inputs` (a path or a
    list, one per graph input), with tinyforge.interp run in this process (torch is imported
    already) and its dump handed over with --reference-dump: the report."""
    import json  # noqa: PLC0415

    from tinyforge import interp  # noqa: PLC0415

    paths = [inputs] if isinstance(inputs, (str, Path)) else list(inputs)
    dump = tmp_path / "torch_dump"
    args = [str(graph)] + [a for p in paths for a in ("--input", str(p))]
    assert interp.main(args + ["--dump-dir", str(dump)]) == 0
    proc = run_cli(cli, "compare", graph, "--against", "pytorch", "--reference-dump", dump,
                   *[a for p in paths for a in ("-i", p)], "--json")
    return json.loads(proc.stdout)


def export_quantized(model: torch.nn.Module, shape, path: Path):
    """The model with seeded random weights (1234), exported int8 with 8 seeded calibration
    inputs (7): the tests' standard quantized graph. Returns tinyforge.export's result."""
    import tinyforge  # noqa: PLC0415

    model = randomize(model, seed=1234)
    calib = random_inputs(shape, 8, seed=7)
    return tinyforge.export(model, (calib[0],), calibration=[(x,) for x in calib], path=path)


def export_tiny(path: Path):
    """The smallest real graph: Linear 8->4 + ReLU on a float [1, 8] input, int8 (seed 0).
    Returns the graph file's path."""
    import tinyforge  # noqa: PLC0415

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU()).eval()
    calib = [(torch.randn(1, 8),) for _ in range(4)]
    return tinyforge.export(model, calib[0], calibration=calib, path=path).path


def board_op(graph, board: str, kernel_prefix: str) -> tuple[dict, dict]:
    """Runs `graph` on `board` (raises on any board != host difference) and profiles it: the
    profile and its first op whose kernel starts with `kernel_prefix`."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    tfboard.run(graph, board, seed=1)
    prof = tfboard.profile(graph, board, seed=1)
    return prof, next(o for o in prof["ops"] if o["kernel"].startswith(kernel_prefix))



def assert_within_1_lsb(report: dict, min_alone: float = 0.6) -> None:
    """A `compare --json` report: no divergence, and every op compared alone (on the
    reference's inputs; at least `min_alone` of them) within 1 LSB."""
    assert report["first_divergence"] is None, report["first_divergence"]
    alone = [row for row in report["ops"] if row["alone_max_diff_lsb"] is not None]
    assert len(alone) >= min_alone * len(report["ops"]), report["ops"]
    for row in alone:
        assert row["alone_max_diff_lsb"] <= 1.0 + 1e-6, row


def reference_model(name: str) -> Path:
    """An MLPerf Tiny reference model (tinyforge.reference_models), or a skip saying how to
    get it (a failure in CI)."""
    from tinyforge import reference_models
    try:
        return reference_models.path(name)
    except reference_models.ModelsError as e:
        pytest.skip(str(e))
