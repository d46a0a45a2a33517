"""Fixtures for the board-support tests: cross builds of the self-test firmware (one build
tree per board, shared by the whole session) and the QEMU plugin.

Build trees live in build/arm-<board> and build/qemu-plugin (another root: set
$TINYFORGE_TARGETS_BUILD) so that a second session only rebuilds what changed. Tests needing a missing tool are skipped, naming
the Debian package to install.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tinyforge.paths import tree_lock
from targets_support import BUILD_ROOT, TARGETS, FirmwareBuild, cmake, generator, require, runner


@pytest.fixture(scope="session")
def cross_tools() -> None:
    require("arm-none-eabi-gcc", "gcc-arm-none-eabi libnewlib-arm-none-eabi "
             "libstdc++-arm-none-eabi-newlib")
    require("cmake", "cmake")


@pytest.fixture(scope="session")
def qemu() -> str:
    require("qemu-system-arm", "qemu-system-arm")
    return "qemu-system-arm"


@pytest.fixture(scope="session")
def firmware_builds(cross_tools):
    """board -> FirmwareBuild, each built on first use and shared by the session."""
    built: dict[str, FirmwareBuild] = {}

    def get(board: str) -> FirmwareBuild:
        if board not in built:
            fw = FirmwareBuild(board)
            fw.configure_and_build()
            built[board] = fw
        return built[board]

    return get


@pytest.fixture(scope="session")
def plugin(qemu) -> Path:
    """libtf_insncount.so, built with the host compiler for the installed QEMU."""
    require("cc", "gcc")
    build = BUILD_ROOT / "qemu-plugin"
    with tree_lock(build):  # parallel test workers share the tree
        return _build_plugin(build)


def _build_plugin(build: Path) -> Path:
    cfg = cmake("-S", str(TARGETS / "qemu"), "-B", str(build), *generator())
    if cfg.returncode != 0:
        pytest.fail(f"configuring the plugin failed:\n{cfg.stdout}\n{cfg.stderr}")
    b = cmake("--build", str(build))
    if b.returncode != 0:
        pytest.fail(f"building the plugin failed:\n{b.stdout}\n{b.stderr}")
    return build / runner.PLUGIN_NAME
