"""Shared fixtures of the kernel tests and a per-op summary of bit-exact cases."""

from __future__ import annotations

import pytest

import kernel_driver
from kernel_driver import BIT_EXACT


@pytest.fixture(scope="session")
def driver():
    path = kernel_driver.driver_path()
    if path is None:
        pytest.fail("kernel_case_driver is not built. Build it with `make build` (or "
                    "`cmake -S . -B build -G Ninja && cmake --build build -j2 "
                    "--target kernel_case_driver`), or point $TINYFORGE_KERNEL_DRIVER at it.")
    return path


def pytest_terminal_summary(terminalreporter):
    if not BIT_EXACT:
        return
    tr = terminalreporter
    tr.section("tinyforge int8 kernels: bit-exact cases per op")
    ops = sorted(set().union(*BIT_EXACT.values()))
    sources = sorted(BIT_EXACT)
    tr.write_line(f"{'op':<28}" + "".join(f"{s:>22}" for s in sources))
    for op in ops:
        tr.write_line(f"{op:<28}" + "".join(f"{BIT_EXACT[s][op]:>22}" for s in sources))
    tr.write_line(f"{'total':<28}" + "".join(f"{sum(BIT_EXACT[s].values()):>22}"
                                             for s in sources))
    if any(s.endswith(" *") for s in sources):
        tr.write_line("* bit-exact except elements where TF's interpreter rounds "
                      "FULLY_CONNECTED once and TFLM twice (each such element verified)")
