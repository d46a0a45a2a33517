"""Run and profile compiled models on the emulated Cortex-M boards (docs/boards.md).

    python -m tinyforge.board run MODEL --board BOARD [--input x.npy]... [--output y.npy]...
                                        [--seed N] [--timeout S] [--json]
    python -m tinyforge.board profile MODEL --board BOARD [--input x.npy]... [--json]
    python -m tinyforge.board profile --trace trace.bin --program DIR [--json]

`tinyforge run MODEL --board B` and `tinyforge profile MODEL --board B` exec this module.
MODEL is a graph file (.tfg: float, qdq or lowered; .tflite), or a directory written by
`tinyforge compile --target B -o DIR` (model.h, model.cc, program.bin, report.json). BOARD is
a board (an385, an386, an505, an547) or the CPU one carries (cortex-m3, cortex-m4,
cortex-m33, cortex-m55).

`run`: compiles MODEL for the board (tinyforge compile --target), builds the firmware
(runtime/firmware/model_runner.cc + the generated model.cc, cross build of targets/), runs it
under qemu-system-arm (targets/qemu/run.py) and checks its outputs bit for bit against the
host runtime running the same program.bin (`tinyforge run program.bin`). On a mismatch it
re-runs the failing sample with every op's output dumped, on the board and on the host, and
names the first op whose output differs. An input .npy may stack N samples ([N, *shape],
[N, *shape[1:]] when the model's batch is 1, or N * elements flat): one boot, N inferences.

`profile`: per op instructions (the tf_insncount QEMU plugin, one event per op), MACs and
kernel (report.json); instructions per inference, stack high-water, RAM per region, flash
split by where it comes from (the linker map). QEMU runs with -icount: figures repeat exactly.
`profile --trace trace.bin --program DIR`: the same table and JSON, in cycles, from a trace
the runtime's tracer (tinyforge/tf_trace.h) recorded on a device running the program compiled
into DIR (board_trace.py; docs/deploying.md, docs/trace-format.md).

Firmware build trees are cached per board (board_build.py).

Exit codes (from the error's kind, errors.py): 0 ok, 1 failure (build failure, firmware
fault, timeout, missing tool, mismatch with the host), 2 invalid input (bad model, wrong
input size, NaN in a float input, unknown board, bad command line).

This module is the command line and the public API; the work is split by job:
    paths.py          where the source tree, the `tinyforge` command and the build trees are
    board_catalog.py  the boards (board.json, checked against targets/boards/board.schema.json)
    board_build.py    compiled models (model.h, report.json), the cached firmware build tree
    board_run.py      inputs, QEMU run, host comparison, first differing op, per-op profile
    board_flash.py    flash bytes by origin from the linker map
    board_trace.py    device traces (tf_trace.h): decoder, per-op profile in cycles
    qemu.py           the QEMU runner (also `targets/qemu/run.py`)

Python:
    from tinyforge import board
    outputs = board.run("kws.tfg", "an547", [x])       # list of arrays; raises BoardError
    prof = board.profile("kws.tfg", "cortex-m55")      # dict, as `profile --json` prints
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from .board_build import (BoardTree, CompiledModel, TensorSpec, compile_for_board,  # noqa: F401
                          read_compiled)
from .board_catalog import boards, resolve_board  # noqa: F401
from .board_flash import FLASH_PARTS, allocator_symbols, flash_split  # noqa: F401
from .board_trace import profile_from_trace, read_trace  # noqa: F401
from .board_run import (RUN_TIMEOUT, RunOutcome, _mismatch_text, _value_summary,  # noqa: F401
                        first_difference, profile, profile_text, random_inputs, run,
                        run_model)
from .compile_options import add_compile_options, compile_options
from .errors import EXIT_OK, BoardError, ErrorKind, TinyforgeError, exit_code  # noqa: F401
from .paths import build_root, find_cli, repo_root  # noqa: F401


# ---- command line ------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tinyforge", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name, help_ in (("run", "run on an emulated board, check bit-exact against the host"),
                        ("profile", "per-op instructions, stack, RAM and flash on a board")):
        s = sub.add_parser(name, help=help_, description=help_)
        s.add_argument("model", nargs="?" if name == "profile" else None,
                       help="graph file (.tfg, .tflite) or a `compile --target -o` directory")
        s.add_argument("--board", "--target", dest="board", required=name == "run",
                       help="an385, an386, an505, an547, or cortex-m3/m4/m33/m55")
        s.add_argument("-i", "--input", action="append", default=[],
                       help=".npy per program input (default: seeded random); may stack N "
                            "samples" if name == "run" else ".npy per program input "
                            "(default: seeded random)")
        s.add_argument("--seed", type=int, default=0, help="seed of the random input")
        s.add_argument("--timeout", type=float, default=RUN_TIMEOUT,
                       help=f"seconds for the QEMU run (default {RUN_TIMEOUT:g})")
        s.add_argument("--json", action="store_true", help="print JSON")
        add_compile_options(s)
        if name == "profile":
            s.add_argument("--trace", help="a device trace (tinyforge/tf_trace.h buffer) to "
                                            "decode instead of running on QEMU; needs --program")
            s.add_argument("--program", help="with --trace: the `tinyforge compile --target "
                                              "-o` directory of the traced firmware's model")
        if name == "run":
            s.add_argument("-o", "--output", action="append", default=[],
                           help=".npy to write per program output (stacked like the input)")
            s.add_argument("--no-check", action="store_true",
                           help="skip the comparison with the host runtime")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    compile_args = compile_options(args)
    try:
        if args.cmd == "profile" and (args.trace or args.program):
            if not (args.trace and args.program) or args.model or args.board:
                raise BoardError("profile --trace FILE --program DIR decodes a device trace "
                                 "(no MODEL, no --board); give both, or MODEL --board B "
                                 "for QEMU", ErrorKind.INVALID_INPUT)
            p = profile_from_trace(args.trace, args.program)
            print(json.dumps(p, indent=2) if args.json else profile_text(p))
            return EXIT_OK
        if args.cmd == "profile":
            if not args.model or not args.board:
                raise BoardError("profile needs MODEL --board B (QEMU), or --trace FILE "
                                 "--program DIR (a device trace)", ErrorKind.INVALID_INPUT)
            p = profile(args.model, args.board, args.input or None, seed=args.seed,
                        timeout=args.timeout, compile_args=compile_args)
            print(json.dumps(p, indent=2) if args.json else profile_text(p))
            return EXIT_OK
        o = run_model(args.model, args.board, args.input or None, seed=args.seed,
                      timeout=args.timeout, check=not args.no_check,
                      compile_args=compile_args)
        if args.output and len(args.output) != len(o.outputs):
            raise BoardError(f"the program has {len(o.outputs)} output(s), "
                             f"{len(args.output)} --output given", ErrorKind.INVALID_INPUT)
        for path, y in zip(args.output, o.outputs):
            np.save(path, y)
        if args.json:
            j = o.to_json()
            for i, path in enumerate(args.output):
                j["outputs"][i]["file"] = path
            print(json.dumps(j, indent=2))
        else:
            for i, y in enumerate(o.outputs):
                s = _value_summary(y)
                dest = f" -> {args.output[i]}" if i < len(args.output) else ""
                print(f"output {i}: {y.dtype.name}{list(y.shape)}{dest}  min={s['min']} "
                      f"max={s['max']} argmax={s['argmax'] if o.samples > 1 else s['argmax'][0]}")
            if not args.no_check:
                verdict = ("bit-exact with the host runtime" if o.bit_exact
                           else "DIFFERENT from the host runtime")
                print(f"{o.board}: {o.samples} inference{'s' * (o.samples > 1)}, {verdict}"
                      + (f"; run stack {o.stack_bytes:,} bytes" if o.stack_bytes else ""))
        if not args.no_check and not o.bit_exact:
            print(f"error: {_mismatch_text(o)}", file=sys.stderr)
            return exit_code(ErrorKind.INTERNAL)
        return EXIT_OK
    except TinyforgeError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
