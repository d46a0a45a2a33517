"""Helpers for the .tflite importer tests: paths to the shared MLPerf Tiny models and TFLM
goldens (read in place, never copied), and running `tinyforge run` on a .tflite with every
tensor dumped, keyed by the TFLite op that produced it."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from e2e_util import run_cli
from tinyforge import reference_models

SHARED = reference_models.shared_dir()  # the goldens live only there
MODELS = reference_models.models_dir() or reference_models.cache_dir()
GOLDEN = SHARED / "golden" / "mlperf-tiny"

_OP_NAME = re.compile(r"^op(\d+)_([A-Z0-9_]+)$")


def manifest() -> dict:
    return json.loads((GOLDEN / "manifest.json").read_text())


def available() -> bool:
    return (GOLDEN / "manifest.json").is_file() and MODELS.is_dir()


def inspect_json(cli: str, model: Path) -> dict:
    return json.loads(run_cli(cli, "inspect", "--json", model).stdout)


def op_outputs(info: dict) -> dict[int, int]:
    """TFLite op index -> IR tensor id of its output (the IR op named opKK_TYPE)."""
    out = {}
    for op in info["ops"]:
        m = _OP_NAME.match(op["name"])
        if m:
            out[int(m.group(1))] = op["outputs"][0]["index"]
    return out


def run_dump(cli: str, model: Path, x: np.ndarray | list[np.ndarray],
             tmp: Path) -> dict[int, np.ndarray]:
    """Runs `model` on input `x` (a list: one array per graph input); returns every tensor
    `tinyforge run` dumped, by IR id."""
    tmp.mkdir(parents=True, exist_ok=True)
    args = []
    for i, xi in enumerate(x if isinstance(x, list) else [x]):
        np.save(tmp / f"x{i}.npy", xi)
        args += ["--input", tmp / f"x{i}.npy"]
    dump = tmp / "dump"
    run_cli(cli, "run", model, *args, "--dump-dir", dump)
    return {int(f.name.split("_", 1)[0]): np.load(f) for f in dump.iterdir()}


def read_bin(rel: str, shape) -> np.ndarray:
    return np.fromfile(GOLDEN / rel, dtype=np.int8).reshape(shape)
