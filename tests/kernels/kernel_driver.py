"""Locates and runs kernel_case_driver (built from tests/kernels/driver by CMake).

The driver is found through $TINYFORGE_KERNEL_DRIVER, else in the repository's CMake build
trees (build/ as `make build` / `pip install -e .` create it, then build-kernels/). Build it
with the main build (`make build`), or on its own:
    cmake -S . -B build -G Ninja && cmake --build build -j2 --target kernel_case_driver
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
_CANDIDATES = [REPO / "build" / "tests" / "kernels" / "kernel_case_driver",
               REPO / "build-kernels" / "tests" / "kernels" / "kernel_case_driver"]


def driver_path() -> pathlib.Path | None:
    env = os.environ.get("TINYFORGE_KERNEL_DRIVER")
    if env:
        return pathlib.Path(env) if pathlib.Path(env).is_file() else None
    return next((p for p in _CANDIDATES if p.is_file()), None)


def run(driver: pathlib.Path, cases: list[dict], workdir: pathlib.Path, tag: str,
        want_outputs: bool = False) -> tuple[dict[str, str], dict[str, list]]:
    """Runs the cases; returns {name: "OK" | "MISMATCH ..." | "ERROR ..."} and, when asked,
    {name: data the kernel computed}."""
    workdir.mkdir(parents=True, exist_ok=True)
    case_file = workdir / f"{tag}.jsonl"
    with case_file.open("w") as f:
        for c in cases:
            f.write(json.dumps(c) + "\n")
    cmd = [str(driver), str(case_file)]
    out_file = workdir / f"{tag}.out.jsonl"
    if want_outputs:
        cmd += ["--outputs", str(out_file)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    status: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word == "OK":
            status[rest] = "OK"
        elif word in ("MISMATCH", "ERROR"):
            name = rest.split(":", 1)[0]
            status[name] = line
    if proc.returncode not in (0, 1) or (proc.stderr and not status):
        raise RuntimeError(f"kernel_case_driver failed ({proc.returncode}): {proc.stderr}")
    outputs: dict[str, list] = {}
    if want_outputs and out_file.exists():
        for line in out_file.read_text().splitlines():
            o = json.loads(line)
            outputs[o["name"]] = o["data"]
    return status, outputs


# {source: Counter(op -> bit-exact cases)}, filled by the tests, printed at the end of the run
# (conftest.py). Kept here, not in conftest.py: other test folders have a conftest module too.
BIT_EXACT: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
