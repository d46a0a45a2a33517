"""The `tinyforge compile --target` options that the commands compiling a model for a board
(`run --board`, `profile`, `report`, `explore`) pass on: one list, so each command takes the
same ones with the same help."""
from __future__ import annotations

import argparse

# (option, help); each takes one value and is passed on as `--option VALUE`.
VALUED = (
    ("--io", "as compile --io"),
    ("--layout", "as compile --layout"),
    ("--memory", "as compile --memory"),
    ("--kernels", "as compile --kernels"),
    ("--rounding", "as compile --rounding"),
    ("--optimize", "as compile --optimize: speed or size"),
    ("--hot-constants", "as compile --hot-constants: off, auto or a RAM region"),
)
# Flags, passed on when given.
FLAGS = (("--min-ram", "as compile --min-ram"),)


def add_compile_options(p: argparse.ArgumentParser) -> None:
    for opt, h in VALUED:
        p.add_argument(opt, help=h)
    for opt, h in FLAGS:
        p.add_argument(opt, action="store_true", help=h)


def compile_options(args: argparse.Namespace) -> list[str]:
    """The arguments `add_compile_options` parsed, for `tinyforge compile`."""
    out: list[str] = []
    for opt, _ in VALUED:
        value = getattr(args, opt[2:].replace("-", "_"))
        if value:
            out += [opt, value]
    for opt, _ in FLAGS:
        if getattr(args, opt[2:].replace("-", "_")):
            out.append(opt)
    return out
