#!/usr/bin/env python3
"""Run tinyforge firmware on a QEMU board: the command line of `tinyforge.qemu`
(python/tinyforge/qemu.py has the usage, the options and the exit statuses).

    targets/qemu/run.py [--board BOARD] FIRMWARE.elf [-- ARG ...] [--timeout S] [--json] ...

Needs the tinyforge package importable: run it with the project's Python
(.venv/bin/python targets/qemu/run.py ..., or with the virtual environment active).
"""
import sys

try:
    from tinyforge.qemu import main
except ModuleNotFoundError as e:
    sys.exit(f"run.py: error: {e.name} is not importable: use the project's Python "
             "(make build, then .venv/bin/python targets/qemu/run.py ...)")

if __name__ == "__main__":
    sys.exit(main())
