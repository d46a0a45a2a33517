"""The CMake package (issue #18 part 2): tinyforge installed into a temporary prefix
(`cmake --install build --prefix P`), examples/firmware configured and built out of tree
against it (find_package(tinyforge CONFIG) + tinyforge_add_model) for an547 and an386 with
the MLPerf KWS .tflite, run under QEMU; every printed output equals the host runtime's
(`P/bin/tinyforge run program.bin`, the installed command) for the same input. A changed
model is compiled again by the next build, an unchanged one is not.

Its own file: two firmware builds from scratch (runtime + kernels per CPU) take most of a
minute on two cores."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from e2e_util import BOARD_TOOLS, ROOT
from tinyforge import qemu, reference_models
from tinyforge.board_build import read_compiled
from tinyforge.paths import tree_lock

BUILD = ROOT / "build"
EXAMPLE = ROOT / "examples" / "firmware"
_OUTPUT = re.compile(r"^output (\d+) (int8|int32|float32)\[([\d,]*)\]:(.*)$")


def _tool(*cmd, timeout: float = 300.0) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # The build tree is this test's own: no compiler cache decides its timing.
    for var in ("CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER"):
        env.pop(var, None)
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=timeout, env=env)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    for tool, package in BOARD_TOOLS + (("cmake", "cmake"),):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found (Debian: apt-get install {package})")
    if not (BUILD / "cmake_install.cmake").is_file():
        pytest.skip("build/ is not configured (run `make build`)")
    p = tmp_path_factory.mktemp("prefix")
    with tree_lock(BUILD):  # not while another test reconfigures build/ (the wheel test)
        _tool("cmake", "--install", BUILD, "--prefix", p)
    return p


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    try:
        src = reference_models.path("kws")
    except reference_models.ModelsError as e:
        pytest.skip(str(e))
    dest = tmp_path_factory.mktemp("model") / "kws.tflite"  # a copy the test may touch
    shutil.copyfile(src, dest)
    return dest


def _example_input(spec, k: int) -> tuple[np.ndarray, int]:
    """The input examples/firmware/main.cc writes: byte k = (37 k + 11) mod 256 (float32:
    element k = ((37 k + 11) mod 256 - 128) / 64), k counting on across the inputs."""
    n = spec.bytes // spec.dtype.itemsize if spec.dtype == np.float32 else spec.bytes
    ks = np.arange(k, k + n, dtype=np.int64)
    pattern = (37 * ks + 11) % 256
    if spec.dtype == np.float32:
        return ((pattern - 128) / 64.0).astype(np.float32).reshape(spec.shape), k + n
    return pattern.astype(np.uint8).view(spec.dtype).reshape(spec.shape), k + n


def _printed_outputs(stdout: str, specs) -> list[np.ndarray]:
    out = []
    for line in stdout.splitlines():
        m = _OUTPUT.match(line)
        if not m:
            continue
        spec = specs[int(m.group(1))]
        assert m.group(2) == spec.dtype.name and \
            tuple(int(d) for d in m.group(3).split(",")) == spec.shape, line[:80]
        values = [int(v, 0) for v in m.group(4).split()]
        if spec.dtype == np.float32:
            arr = np.array(values, dtype=np.uint32).view(np.float32)
        else:
            arr = np.array(values, dtype=spec.dtype)
        out.append(arr.reshape(spec.shape))
    return out


# an547 in the example's default build type (Release, -O3), an386 in MinSizeRel (-Os): both
# build types checked, and -Os compiles the kernels in half the time.
BUILD_TYPES = {"an547": "Release", "an386": "MinSizeRel"}


def _configure_and_build(prefix, board, model, build_dir):
    toolchain = prefix / "share" / "tinyforge" / "targets" / "cmake" / "arm-none-eabi.cmake"
    _tool("cmake", "-S", EXAMPLE, "-B", build_dir, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
          f"-DCMAKE_TOOLCHAIN_FILE={toolchain}", f"-DTINYFORGE_BOARD={board}", f"-DMODEL={model}",
          f"-DCMAKE_BUILD_TYPE={BUILD_TYPES[board]}")
    return _tool("cmake", "--build", build_dir, "-j2")


@pytest.mark.parametrize("board", list(BUILD_TYPES))
def test_example_firmware_prints_the_host_runtime_outputs(prefix, model, board, tmp_path):
    build_dir = tmp_path / "fw"
    proc = _configure_and_build(prefix, board, model, build_dir)
    assert "tinyforge: compiling" in proc.stdout
    compiled = read_compiled(build_dir / "tinyforge" / "firmware_net")
    assert compiled.name == "net" and compiled.board == board

    result = qemu.run(build_dir / "firmware.elf", board=board, timeout=60.0, plugin=None)
    assert result.exit_code == 0 and result.stdout.rstrip().endswith("done"), \
        f"exit {result.exit_code}\n{result.stdout}\n{result.stderr}"
    device = _printed_outputs(result.stdout, compiled.outputs)
    assert len(device) == len(compiled.outputs) > 0

    k, args = 0, []
    for i, spec in enumerate(compiled.inputs):
        x, k = _example_input(spec, k)
        np.save(tmp_path / f"in{i}.npy", x)
        args += ["--input", tmp_path / f"in{i}.npy"]
    outs = []
    for i in range(len(compiled.outputs)):
        outs += ["--output", tmp_path / f"out{i}.npy"]
    _tool(prefix / "bin" / "tinyforge", "run", compiled.dir / "program.bin", *args, *outs)
    for i, got in enumerate(device):
        want = np.load(tmp_path / f"out{i}.npy")
        np.testing.assert_array_equal(got, want, err_msg=f"{board}: output {i}")
    # The reference this is checked against must not be trivially constant.
    assert len(np.unique(np.concatenate([d.ravel() for d in device]))) > 1

    if board == "an547":  # rebuilding: the model is compiled again only when it changed
        again = _tool("cmake", "--build", build_dir, "-j2")
        assert "tinyforge: compiling" not in again.stdout
        os.utime(model)
        again = _tool("cmake", "--build", build_dir, "-j2")
        assert "tinyforge: compiling" in again.stdout and "Linking" in again.stdout


def test_unknown_target_is_one_clear_configure_error(prefix, model, tmp_path):
    """A TARGET that is no board, board file or CPU stops the configure with one message
    naming the choices (the toolchain file is not needed to get there)."""
    proc = subprocess.run(["cmake", "-S", str(EXAMPLE), "-B", str(tmp_path / "b"), "-G", "Ninja",
                           f"-DCMAKE_PREFIX_PATH={prefix}", "-DBOARD=cortex-m99",
                           f"-DMODEL={model}"], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    err = " ".join(proc.stderr.split())
    assert "TARGET 'cortex-m99' is not a board" in err and "stm32h743" in err and \
        "cortex-m55" in err, proc.stderr


def test_compile_name_must_be_a_c_identifier(prefix, model, tmp_path):
    cli = prefix / "bin" / "tinyforge"
    bad = subprocess.run([str(cli), "compile", str(model), "--target", "an547", "--name",
                          "Kws-Model", "-o", str(tmp_path / "o")], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "--name: 'Kws-Model' is not a lower-case C identifier" in \
        bad.stderr and "kws_model" in bad.stderr, bad.stderr
    _tool(cli, "compile", model, "--target", "an547", "--name", "kws", "-o", tmp_path / "o")
    assert "extern const tf_model_def tf_model_kws;" in (tmp_path / "o" / "model.h").read_text()
