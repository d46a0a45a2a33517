"""Smoke test on the emulated Cortex-M55 board: a compiled zoo model (model.h/model.cc from
`tinyforge compile --target an547`) linked with the runtime and the kernels it uses, run
under QEMU; its output must equal the host runtime's for the same program and input.

Skips without the Arm toolchain or QEMU. The cross build tree is reused between runs
(build/arm-an547-runtime, or $TINYFORGE_TARGETS_BUILD/arm-an547-runtime).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tinyforge
from tinyforge import models

from e2e_util import randomize, random_inputs, run_cli

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TINYFORGE_TARGETS_BUILD", ROOT / "build")) / "arm-an547-runtime"


def _require(tool: str, package: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not found (Debian: apt-get install {package})")


def test_kws_on_an547_matches_host_runtime(cli, tmp_path):
    _require("arm-none-eabi-gcc", "gcc-arm-none-eabi")
    _require("qemu-system-arm", "qemu-system-arm")
    model, shape = models.get("ds_cnn")
    model = randomize(model, seed=1234)
    calib = random_inputs(shape, 8, seed=7)
    graph = tinyforge.export(model, (calib[0],), calibration=[(x,) for x in calib],
                             path=tmp_path / "kws.tfg").path
    out = BUILD / "model"  # fixed path: the build tree remembers it
    run_cli(cli, "compile", graph, "--target", "an547", "-o", out)
    cfg = ["cmake", "-S", str(ROOT / "targets"), "-B", str(BUILD), "-DTINYFORGE_BOARD=an547",
           "-DTINYFORGE_FIRMWARE_DIRS=runtime/firmware", f"-DTF_MODEL_DIR={out}",
           "-DTF_MODEL_NAME=dscnn", "-DTINYFORGE_TARGETS_TESTS=OFF"]
    if shutil.which("ninja"):
        cfg[1:1] = ["-G", "Ninja"] if not (BUILD / "CMakeCache.txt").exists() else []
    for cmd in (cfg, ["cmake", "--build", str(BUILD), "-j2", "--target", "model_runner"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    elf = BUILD / "firmware" / "runtime_firmware" / "model_runner.elf"

    x = np.random.default_rng(1).integers(-128, 128, size=(1, 49, 10, 1), dtype=np.int8)
    x.tofile(tmp_path / "x.bin")
    np.save(tmp_path / "x.npy", x)
    proc = subprocess.run([sys.executable, str(ROOT / "targets" / "qemu" / "run.py"),
                           "--cwd", str(tmp_path), str(elf), "--", "x.bin", "y.bin"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "model_runner: ok" in proc.stdout
    run_cli(cli, "run", out / "program.bin", "-i", tmp_path / "x.npy", "-o", tmp_path / "y.npy")
    board = np.fromfile(tmp_path / "y.bin", dtype=np.int8)
    host = np.load(tmp_path / "y.npy").reshape(-1)
    assert np.array_equal(board, host)
