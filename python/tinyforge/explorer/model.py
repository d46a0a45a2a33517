"""The model and profile the Model Explorer adapter shows, from the existing readers (no
parser here, and no Model Explorer import: `tinyforge explore` checks its input before
loading it). A graph file (.tfg, .tflite) is what `tinyforge inspect --json` prints; a
compiled directory is its report.json (the program's ops in execution order with their
kernel, MACs, bytes and the operands of the lowered graph op each runs), read by
`report.load_compiled`. Both describe tensors the same way (tools/tinyforge/tensor_json.cc:
name, dtype, shape, bytes, constant, quant).
"""
from __future__ import annotations

import json
from pathlib import Path

from .. import report
from ..board_build import cli
from ..errors import TinyforgeError, kind_of_exit

ADAPTER_ID = "tinyforge"


class ExploreError(TinyforgeError):
    """The model or profile cannot be shown as asked (kind INVALID_INPUT unless told)."""


def is_program(model: dict) -> bool:
    """A compiled program's report.json (else `inspect --json` of a graph file)."""
    return model.get("schema") == "tinyforge.report/1"


def program_dir(path: str | Path) -> Path:
    """A compiled program's directory when `path` names its program.bin (what Model Explorer
    is given: its UI picks adapters by file extension) or report.json; else `path`."""
    path = Path(path)
    if path.is_file() and (path.suffix == ".bin" or path.name == "report.json"):
        if not (path.parent / "report.json").is_file():
            raise ExploreError(f"{path}: no report.json beside it: open a directory "
                               "`tinyforge compile --target -o` wrote")
        return path.parent
    return path


def load_model(path: str | Path, target: str | None = None, compile_args=(),
               out_dir: str | Path | None = None) -> dict:
    """The model at `path`: a compile directory (or its program.bin or report.json) as
    report.json; a graph file as `inspect --json` prints it, or, with `target`, compiled for
    it into `out_dir` (default: a temporary directory) as report.json."""
    path = program_dir(path)
    if path.is_dir() and not (path / "report.json").is_file():
        raise ExploreError(f"{path}: a directory without report.json: give a graph file "
                           "(.tfg, .tflite) or a directory `tinyforge compile --target -o` "
                           "wrote")
    if path.is_dir() or target:
        try:
            model = report.load_compiled(path, target, compile_args, out_dir)
        except report.ReportError as e:
            raise ExploreError(str(e), e.kind) from None
        if "elided_ops" not in model or any("inputs" not in o for o in model["ops"]):
            raise ExploreError(f"{path}: report.json lists no operands (written by an older "
                               "tinyforge): compile it again")
        return model
    if not path.exists():
        raise ExploreError(f"{path}: no such file")
    proc = cli("inspect", "--json", path)
    if proc.returncode != 0:
        said = " ".join(line.strip().removeprefix("error: ") for line in
                        (proc.stderr or proc.stdout).strip().splitlines())
        raise ExploreError(said or f"{path}: tinyforge inspect failed",
                           kind_of_exit(proc.returncode))
    return json.loads(proc.stdout)


def read_profile(path: str | Path, model: dict | None = None) -> dict:
    """A `tinyforge profile --json` output; with `model`, checked to be of that compiled
    program (same op names)."""
    path = Path(path)
    try:
        profile = json.loads(path.read_text())
    except FileNotFoundError:
        raise ExploreError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ExploreError(f"{path}: not a `tinyforge profile --json` output ({e})") from None
    if not isinstance(profile, dict):
        raise ExploreError(f"{path}: not a `tinyforge profile --json` output")
    if model is None:
        return profile
    if not is_program(model):
        raise ExploreError(f"{path}: a profile is of a compiled program: open the model "
                           f"compiled for {profile.get('board')} (--target) to overlay it")
    try:
        report.check_profile(profile, model, path)
    except report.ReportError as e:
        raise ExploreError(str(e), e.kind) from None
    return profile
