"""`pip install .` (issue #18 part 5): the wheel of this tree, installed into a fresh virtual
environment outside the source tree, gives a working `tinyforge` command and Python package
with the runtime and kernel sources and the CMake package inside; its torch requirement is a
range that keeps a newer torch (2.14.1 + torchvision 0.29.1) instead of downgrading it.

The wheel is built with scikit-build-core's build-dir (build/, pyproject.toml), which `make
build` has already compiled: the build step finds nothing to compile and only installs and
packs. numpy and torch come from the development environment (a .pth line, read-only),
since pip would download several GB; tinyforge itself only from the wheel."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from e2e_util import ROOT
from tinyforge import __version__
from tinyforge.paths import tree_lock

BUILD = ROOT / "build"
PY = f"python{sys.version_info.major}.{sys.version_info.minor}"
# What an installed tinyforge must hold beside the command (share/tinyforge/...).
INSTALLED_FILES = ("cmake/tinyforgeConfig.cmake", "cmake/tinyforgeConfigVersion.cmake",
                   "targets/cmake/TinyforgeModel.cmake", "targets/cmake/arm-none-eabi.cmake",
                   "targets/cpus.json", "targets/boards/an547/an547.ld",
                   "targets/common/startup.S", "runtime/src/c_api.cc", "runtime/ops/conv.cc",
                   "runtime/include/tinyforge/tf_model.h", "kernels/families.def",
                   "kernels/families.cmake", "kernels/conv/s8_conv__mve.cc")


def _clean_env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TINYFORGE_", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(ROOT)))
    return env


def _run(*cmd, cwd=None, timeout: float = 300.0, check: bool = True,
         clean: bool = True) -> subprocess.CompletedProcess:
    """cmd, by default in an environment that points nowhere into the source tree."""
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env=_clean_env() if clean else None)
    if check:
        assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if not (BUILD / "CMakeCache.txt").is_file():
        pytest.skip("build/ is not configured (run `make build`)")
    out = tmp_path_factory.mktemp("wheel")
    with tree_lock(BUILD):  # build/ is reconfigured: not while another test installs from it
        proc = _run(sys.executable, "-m", "pip", "wheel", "-v", "--no-build-isolation",
                    "--no-deps", "--disable-pip-version-check", "-w", out, ROOT, timeout=600,
                    clean=False)
    log = proc.stdout + proc.stderr
    assert "Installing: " in log and "share/tinyforge/cmake/tinyforgeConfig.cmake" in log, log
    assert "Building CXX object" not in log and "Linking CXX" not in log, \
        "the wheel build compiled or linked C++ again"
    wheels = list(out.glob("tinyforge-*.whl"))
    assert len(wheels) == 1, proc.stdout
    return wheels[0]


def _dev_site_dirs() -> list[str]:
    """The folders numpy and torch are imported from in this (development) environment."""
    dirs = []
    for name in ("numpy", "torch", "torchao"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin, f"{name} is not installed here"
        d = str(Path(spec.origin).parents[1])
        if d not in dirs:
            dirs.append(d)
    return dirs


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel) -> Path:
    v = tmp_path_factory.mktemp("venv") / "env"
    _run(sys.executable, "-m", "venv", v)
    site = v / "lib" / PY / "site-packages"
    (site / "_tinyforge_test_deps.pth").write_text("\n".join(_dev_site_dirs()) + "\n")
    _run(v / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", "--no-index",
         "--disable-pip-version-check", wheel)
    return v


def test_installed_layout(venv):
    share = venv / "share" / "tinyforge"
    missing = [f for f in INSTALLED_FILES if not (share / f).is_file()]
    assert not missing, f"not installed: {missing}"
    assert os.access(venv / "bin" / "tinyforge", os.X_OK)
    proc = _run(venv / "bin" / "python", "-c",
                "import tinyforge, tinyforge.paths as p; print(tinyforge.__file__); "
                "print(p.repo_root()); print(tinyforge.cmake_dir()); print(p.build_root())",
                cwd=venv)
    module, root, cmake_dir, build_root = proc.stdout.split("\n")[:4]
    assert Path(module).is_relative_to(venv), module
    assert Path(root) == share.resolve() and Path(cmake_dir) == share.resolve() / "cmake"
    assert not Path(build_root).is_relative_to(share), "firmware builds inside the install"


def test_installed_command_reads_the_installed_boards(venv, tmp_path):
    """A board that only the installation has: the command reads its own share/tinyforge,
    not the source tree it was built from."""
    share = venv / "share" / "tinyforge" / "targets" / "boards"
    board = json.loads((share / "an386" / "board.json").read_text())
    board["name"] = "installed_only"
    (share / "installed_only").mkdir(exist_ok=True)
    (share / "installed_only" / "board.json").write_text(json.dumps(board))
    model = tmp_path / "m"
    proc = _run(venv / "bin" / "python", "-c",
                "import sys, tinyforge, torch; torch.manual_seed(0); "
                "m = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU()).eval(); "
                "c = [(torch.randn(1, 8),) for _ in range(4)]; "
                "print(tinyforge.export(m, c[0], calibration=c, path=sys.argv[1]).path)",
                model, cwd=tmp_path)
    graph = proc.stdout.strip().splitlines()[-1]
    _run(venv / "bin" / "tinyforge", "compile", graph, "--target", "installed_only", "-o",
         tmp_path / "out", cwd=tmp_path)
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["target"]["board"] == "installed_only"
    for f in ("model.h", "model.cc", "program.bin"):
        assert (tmp_path / "out" / f).is_file()
    x = np.linspace(-2, 2, 8, dtype=np.float32).reshape(1, 8)
    np.save(tmp_path / "x.npy", x)
    run = _run(venv / "bin" / "tinyforge", "run", graph, "--input", tmp_path / "x.npy",
               "--output", tmp_path / "y.npy", cwd=tmp_path)
    assert np.load(tmp_path / "y.npy").shape == (1, 4), run.stdout


def _fake_dist(site: Path, name: str, version: str, requires: tuple[str, ...] = ()) -> None:
    d = site / f"{name}-{version}.dist-info"
    d.mkdir()
    meta = [f"Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    meta += [f"Requires-Dist: {r}" for r in requires]
    (d / "METADATA").write_text("\n".join(meta) + "\n")
    (d / "INSTALLER").write_text("pip\n")


def test_install_keeps_a_newer_torch(wheel, tmp_path):
    """pip's resolver, asked to install the wheel where torch 2.14.1 and torchvision 0.29.1
    are installed (their metadata: no 5 GB download), installs tinyforge alone."""
    v = tmp_path / "env"
    _run(sys.executable, "-m", "venv", "--without-pip", v)
    site = v / "lib" / PY / "site-packages"
    _fake_dist(site, "torch", "2.14.1")
    _fake_dist(site, "torchvision", "0.29.1", ("torch==2.14.1",))
    _fake_dist(site, "torchao", "0.18.0")
    _fake_dist(site, "numpy", "2.4.6")
    proc = _run(sys.executable, "-m", "pip", "--python", v / "bin" / "python", "install",
                "--dry-run", "--no-index", "--disable-pip-version-check", wheel)
    would = [l for l in proc.stdout.splitlines() if l.startswith("Would install")]
    assert would == [f"Would install tinyforge-{__version__}"], proc.stdout + proc.stderr
