"""`tinyforge explore`: a model in Model Explorer with the tinyforge adapter (docs/boards.md).

    python -m tinyforge.explorer MODEL [--target BOARD] [--profile prof.json] [--port N]

MODEL is a graph file (.tfg, .tflite), shown as it is, or compiled first for --target (a
board, board.json or CPU, as compile --target) and shown as the program; or a `tinyforge
compile --target -o` directory. `--profile` (a `tinyforge profile --json` output) overlays
instructions per op; a graph file given with a profile and no --target is compiled for the
profile's board. The model and profile are checked before the server starts; the server runs
until Ctrl+C (or SIGTERM).

Exit codes (errors.py): 0 stopped, 1 Model Explorer not installed, 2 invalid input (no such
model, not a model, a profile of another program, a model that does not compile).
"""
from __future__ import annotations

import argparse
import signal
import sys
import tempfile
from pathlib import Path

from ..errors import EXIT_FAILURE, EXIT_OK, TinyforgeError
from ..compile_options import add_compile_options, compile_options
from .model import ADAPTER_ID, ExploreError, is_program, load_model, program_dir, read_profile

EXTENSION = "tinyforge.explorer"  # Model Explorer imports tinyforge.explorer.main


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tinyforge explore",
        description="Open a model in Model Explorer (pip install 'tinyforge[explorer]'): ops, "
                    "shapes, dtypes, quantization, kernels, and per-op overlays (MACs, bytes, "
                    "instructions from a profile).")
    p.add_argument("model", help="graph file (.tfg, .tflite) or a `tinyforge compile --target "
                                 "-o` directory")
    p.add_argument("--target", help="compile the graph file for this board, board.json or CPU "
                                    "and show the program (kernels, bytes)")
    p.add_argument("--profile", help="`tinyforge profile MODEL --board B --json` output: "
                                     "instructions per op (a graph file is compiled for B)")
    add_compile_options(p)
    p.add_argument("--host", default="localhost", help="host to serve on (default localhost)")
    p.add_argument("--port", type=int, default=8080,
                   help="port (default 8080, or the next free one up to 8099)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    return p


def _stop_on_sigterm() -> None:
    """SIGTERM stops the server as Ctrl+C does (the temporary directory is removed)."""
    def handler(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


def _no_version_check(*args, **kwargs) -> dict:
    return {"version": "", "runningVersion": "", "releaseUrl": "", "desktopAppUrl": ""}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    compile_args = compile_options(args)
    _stop_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="tf-explore-") as tmp:
        try:
            path, model, profile = _load(args, compile_args, Path(tmp))
        except TinyforgeError as e:
            print(f"error: {e}", file=sys.stderr)
            return e.exit_code
        try:  # Model Explorer imports torch: after the input is known to be good
            from model_explorer import config as me_config
            from model_explorer import server

            from .graph import node_data
        except ImportError as e:
            print(f"error: Model Explorer is not installed ({e}): pip install "
                  "'tinyforge[explorer]'", file=sys.stderr)
            return EXIT_FAILURE
        # Model Explorer's page picks an adapter by file extension: a program by its .bin.
        shown = path / "program.bin" if path.is_dir() else path
        cfg = me_config().add_model_from_path(str(shown), adapterId=ADAPTER_ID)
        for data in node_data(model, profile):
            cfg.add_node_data(name=data.name, node_data=data)
        # Model Explorer asks PyPI for a newer release at start and from the page; tinyforge
        # pins the version it is tested with, and explore works offline.
        if hasattr(server, "_check_new_version"):
            server._check_new_version = _no_version_check
        print(f"explore: {shown} ({len(model['ops'])} ops" +
              (f", {model['target']['board']}" if is_program(model) else "") +
              (", profiled" if profile else "") + ")", flush=True)
        server.start(host=args.host, port=args.port, config=cfg, extensions=[EXTENSION],
                     no_open_in_browser=args.no_browser)
    return EXIT_OK


def _load(args, compile_args: list[str], tmp: Path) -> tuple[Path, dict, dict | None]:
    """The path the adapter opens (a graph file, or a program's directory: the one given,
    or `tmp` when compiled here), the model, the profile checked against it."""
    profile = read_profile(args.profile) if args.profile else None
    path = program_dir(args.model)
    target = args.target
    if profile is not None and not target and not path.is_dir():
        target = profile.get("board")  # a profile is of a program: compile for its board
    model = load_model(path, target, compile_args, out_dir=tmp)
    if path.is_dir() and target not in (None, model["target"]["board"], model["target"]["cpu"]):
        raise ExploreError(f"{path} was compiled for {model['target']['board']}, not {target}")
    if not path.is_dir() and target:
        path = tmp
    if profile is not None:
        profile = read_profile(args.profile, model)
    return path, model, profile


if __name__ == "__main__":
    sys.exit(main())
