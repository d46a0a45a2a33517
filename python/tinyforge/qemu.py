"""Run tinyforge firmware on a QEMU board and collect what it did.

    targets/qemu/run.py [--board BOARD] FIRMWARE.elf [-- ARG ...] [--timeout S] [--plugin PATH | --no-plugin]
           [--mode tb|insn] [--events] [--memory] [--json] [--qemu PATH] [--no-icount] [--cwd DIR]

Starts qemu-system-arm for the board (machine from its board.json, read by board_catalog) with
semihosting (the firmware's printf, exit status, host files and ARGs), deterministic
virtual time (-icount shift=0,align=off,sleep=off) and the tf_insncount plugin, under a
timeout. The board defaults to the one recorded in the ELF (section .tf_board_id); naming
another one is an error.

Without --json: the firmware's output on stdout, a summary (exit status, instruction
counts per region) on stderr. With --json: one JSON object on stdout (RunResult.to_json()).
Exit status: the firmware's (0-255; 125 = it faulted), 124 = stopped by the timeout,
2 = usage error, 127 = qemu-system-arm not found.

Python (stdlib and this package only):
    from tinyforge import qemu
    r = qemu.run("build-arm-an547/tests/hello.elf", args=["x"], timeout=20)
    r.exit_code, r.stdout, r.fault, r.perf.total_insns, r.perf.regions[0].insns

The plugin (libtf_insncount.so) is looked up in $TINYFORGE_QEMU_PLUGIN, then
<repo>/build/targets/qemu/ (root CMake build), then <repo>/build/qemu-plugin/ (standalone);
without it the run still happens, with no counts.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import board_catalog
from .errors import ErrorKind, TinyforgeError
from .paths import repo_root

PLUGIN_NAME = "libtf_insncount.so"
EXIT_USAGE = 2
EXIT_TIMEOUT = 124
EXIT_FAULT = 125  # TF_EXIT_FAULT in targets/common/include/tf_board.h
EXIT_NOT_FOUND = 127
ICOUNT = "shift=0,align=off,sleep=off"


class RunError(TinyforgeError):
    """A run could not be started (bad board, missing file, board mismatch: invalid input;
    QEMU or the plugin missing: I/O)."""

    @property
    def exit_code(self) -> int:
        """run.py's exit status: 127 when a tool is missing, else 2 (usage)."""
        return EXIT_NOT_FOUND if self.kind is ErrorKind.IO else EXIT_USAGE


@dataclasses.dataclass
class Region:
    calls: int
    insns: int  # summed over calls, markers excluded
    min: int
    max: int


@dataclasses.dataclass
class Event:
    region: int
    call: int
    insns: int
    start: int  # instructions executed before the call began
    # With memory=True: the call's data bytes read per memory region (those read from).
    reads: dict[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class MemCount:
    read: int  # bytes loaded
    write: int  # bytes stored
    loads: int  # load accesses (a VLDRB.8 of 16 bytes is one: QEMU reports it per element
    stores: int  # or per access, so only the byte counts compare across instruction sets)


@dataclasses.dataclass
class PerfReport:
    mode: str
    api: int
    total_insns: int
    regions: dict[int, Region]
    events: list[Event]
    open: dict[int, int]  # region -> instructions since its BEGIN, for regions never ended
    errors: list[str]  # unbalanced markers, dropped events
    complete: bool  # False if QEMU died before the plugin wrote its last line
    # With run(..., memory=True): per region id, per board memory region (and "other" for
    # addresses in none), the data bytes read and written while the region was open.
    memory: dict[int, dict[str, MemCount]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class RunResult:
    board: str
    machine: str
    elf: str
    command: list[str]
    exit_code: int
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str
    fault: str | None  # the firmware's "tf-fault: ..." line, if it faulted
    perf: PerfReport | None  # None when run without the plugin

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2)


def boards() -> list[str]:
    return board_catalog.emulated_names()


def load_board(name: str) -> dict:
    try:
        return board_catalog.board(name)
    except TinyforgeError as e:
        raise RunError(str(e), e.kind) from None


def elf_board(elf: Path) -> str | None:
    """The board recorded in the ELF's .tf_board_id section ("tinyforge-board=<name>")."""
    data = elf.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise RunError(f"{elf}: not a 32-bit little-endian ELF file")
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2E)

    def section(i: int) -> tuple[int, int, int]:
        name, _, _, _, offset, size = struct.unpack_from("<IIIIII", data, shoff + i * shentsize)
        return name, offset, size

    _, names_offset, _ = section(shstrndx)
    for i in range(shnum):
        name, offset, size = section(i)
        end = data.index(b"\0", names_offset + name)
        if data[names_offset + name:end] == b".tf_board_id":
            text = data[offset:offset + size].split(b"\0", 1)[0].decode()
            key, _, value = text.partition("=")
            return value if key == "tinyforge-board" else None
    return None


def find_plugin() -> Path | None:
    """$TINYFORGE_QEMU_PLUGIN, else the root CMake build's, else the standalone build's."""
    env = os.environ.get("TINYFORGE_QEMU_PLUGIN")
    if env:
        return Path(env)
    for sub in ("targets/qemu", "qemu-plugin"):
        candidate = repo_root() / "build" / sub / PLUGIN_NAME
        if candidate.is_file():
            return candidate
    return None


def _qemu_opt(value: str) -> str:
    return value.replace(",", ",,")  # QEMU option syntax: a literal comma is doubled


def _fields(line: str) -> dict[str, str]:
    return dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)


def parse_perf(text: str) -> PerfReport:
    """Parses the plugin's report (format in tf_insncount.c)."""
    report = PerfReport(mode="", api=0, total_insns=0, regions={}, events=[], open={}, errors=[],
                        complete=False)
    for line in text.splitlines():
        if not line.startswith("tf-perf "):
            continue
        kind = line.split()[1]
        f = _fields(line)
        if kind.startswith("version="):
            report.mode, report.api = f["mode"], int(f["qemu-plugin-api"])
        elif kind == "total":
            report.total_insns = int(f["insns"])
        elif kind.startswith("region="):
            report.regions[int(f["region"])] = Region(int(f["calls"]), int(f["insns"]),
                                                      int(f["min"]), int(f["max"]))
        elif kind == "event":
            reads = {name: int(n) for name, n in (item.rsplit(":", 1) for item in
                                                  f["reads"].split(","))} if "reads" in f else {}
            report.events.append(Event(int(f["region"]), int(f["call"]), int(f["insns"]),
                                       int(f["start"]), reads))
        elif kind == "open":
            report.open[int(f["region"])] = int(f["insns"])
        elif kind == "error":
            report.errors.append(line[len("tf-perf error "):])
        elif kind == "mem":
            report.memory.setdefault(int(f["region"]), {})[f["range"]] = MemCount(
                int(f["read"]), int(f["write"]), int(f["loads"]), int(f["stores"]))
        elif kind == "end":
            report.complete = True
    return report


def memory_ranges(board: dict) -> list[str]:
    """The plugin's range= arguments for a board: its memory regions (board.json memory[])."""
    return [f"range={m['name']}:{m['base']}:{m['size']}" for m in board["memory"]]


def qemu_command(qemu: str, machine: str, elf: Path, args: list[str], *, icount: bool,
                 plugin: Path | None, plugin_args: list[str]) -> list[str]:
    semihosting = ["enable=on", "target=native"]
    semihosting += [f"arg={_qemu_opt(a)}" for a in [elf.name, *args]]  # argv[0] first
    cmd = [qemu, "-M", machine, "-display", "none", "-monitor", "none", "-serial", "null",
           "-semihosting-config", ",".join(semihosting)]
    if icount:
        cmd += ["-icount", ICOUNT]
    if plugin is not None:
        cmd += ["-plugin", ",".join([_qemu_opt(str(plugin)), *plugin_args])]
    return cmd + ["-kernel", str(elf)]


def run(elf: str | os.PathLike, board: str | None = None, args: list[str] | tuple = (),
        timeout: float = 20.0, plugin: str | os.PathLike | None = "auto", mode: str = "tb",
        events: bool = False, icount: bool = True, qemu: str | None = None,
        cwd: str | os.PathLike | None = None, memory: bool = False) -> RunResult:
    """Runs `elf` on its board. plugin: a path, "auto" (find_plugin(); none is fine) or None.
    memory: also count the data bytes read and written per board memory region while each
    region is open (perf.memory; a callback per access: slower).
    Raises RunError if the run cannot start; a firmware failure is a result, not an error."""
    elf = Path(elf).resolve()
    if not elf.is_file():
        raise RunError(f"{elf}: no such file")
    recorded = elf_board(elf)
    board = board or recorded
    if board is None:
        raise RunError(f"{elf}: no .tf_board_id section; pass --board")
    if recorded is not None and recorded != board:
        raise RunError(f"{elf} was built for {recorded}, not {board}")
    board_desc = load_board(board)
    machine = board_desc["qemu"]["machine"]
    qemu = qemu or os.environ.get("TINYFORGE_QEMU") or "qemu-system-arm"
    if shutil.which(qemu) is None:
        raise RunError(f"{qemu}: not found (Debian: apt-get install qemu-system-arm)", ErrorKind.IO)
    if plugin == "auto":
        plugin = find_plugin()
    if plugin is not None and not Path(plugin).is_file():
        raise RunError(f"{plugin}: plugin not found (build it: cmake -S targets/qemu ...)",
                       ErrorKind.IO)
    if mode not in ("tb", "insn"):
        raise RunError(f"mode must be tb or insn, not {mode}")

    with tempfile.TemporaryDirectory(prefix="tf-run-") as tmp:
        report_path = Path(tmp) / "perf.txt"
        plugin_args = [f"out={_qemu_opt(str(report_path))}", f"mode={mode}",
                       f"events={'on' if events else 'off'}"]
        if memory:
            plugin_args += memory_ranges(board_desc)
        cmd = qemu_command(qemu, machine, elf, list(args), icount=icount,
                           plugin=Path(plugin).resolve() if plugin else None,
                           plugin_args=plugin_args)
        started = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=cwd, start_new_session=True)
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            # SIGTERM first: QEMU then exits normally and the plugin still writes its report
            # (the "open" lines show which region was running).
            proc.send_signal(signal.SIGTERM)
            try:
                out, err = proc.communicate(timeout=3)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
        seconds = time.monotonic() - started
        perf = None
        if plugin is not None and report_path.is_file():
            perf = parse_perf(report_path.read_text())

    stdout = out.decode(errors="replace")
    stderr = err.decode(errors="replace")
    fault = next((line for line in stdout.splitlines() if line.startswith("tf-fault:")), None)
    return RunResult(board=board, machine=machine, elf=str(elf), command=cmd,
                     exit_code=EXIT_TIMEOUT if timed_out else proc.returncode,
                     timed_out=timed_out, seconds=round(seconds, 3), stdout=stdout,
                     stderr=stderr, fault=fault, perf=perf)


def _summary(r: RunResult) -> str:
    status = f"timed out ({r.seconds:.1f} s)" if r.timed_out else f"exit {r.exit_code}"
    lines = [f"run.py: {r.board} ({r.machine}) {Path(r.elf).name}: {status}"]
    if r.perf is not None:
        lines.append(f"run.py: total insns={r.perf.total_insns} (mode={r.perf.mode})")
        for rid, reg in sorted(r.perf.regions.items()):
            lines.append(f"run.py: region {rid}: calls={reg.calls} insns={reg.insns} "
                         f"min={reg.min} max={reg.max}")
        for rid, ranges in sorted(r.perf.memory.items()):
            lines.append(f"run.py: region {rid} data bytes read/written: " + ", ".join(
                f"{name} {c.read}/{c.write}" for name, c in ranges.items()))
        for rid, n in sorted(r.perf.open.items()):
            lines.append(f"run.py: region {rid}: still open, {n} insns since BEGIN")
        lines += [f"run.py: marker error: {e}" for e in r.perf.errors]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("elf", help="firmware built with tf_add_firmware()")
    p.add_argument("args", nargs="*", help="arguments for the firmware's main (after --)")
    p.add_argument("--board", choices=boards(), help="default: the board recorded in the ELF")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds (default 20)")
    p.add_argument("--plugin", help=f"path to {PLUGIN_NAME} (default: found automatically)")
    p.add_argument("--no-plugin", action="store_true", help="run without instruction counts")
    p.add_argument("--mode", choices=("tb", "insn"), default="tb",
                   help="plugin counting mode (default tb; insn is exact around device I/O)")
    p.add_argument("--events", action="store_true", help="report every call of every region")
    p.add_argument("--memory", action="store_true",
                   help="count data bytes read/written per memory region in each region")
    p.add_argument("--no-icount", action="store_true", help="real-time clock (not deterministic)")
    p.add_argument("--qemu", help="qemu-system-arm to use")
    p.add_argument("--cwd", help="QEMU's working directory: relative host paths start here")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    a = p.parse_args(argv)
    plugin = None if a.no_plugin else (a.plugin or "auto")
    try:
        r = run(a.elf, board=a.board, args=a.args, timeout=a.timeout, plugin=plugin,
                mode=a.mode, events=a.events, icount=not a.no_icount, qemu=a.qemu, cwd=a.cwd,
                memory=a.memory)
    except RunError as e:
        print(f"run.py: error: {e}", file=sys.stderr)
        return e.exit_code
    if a.json:
        print(r.to_json())
    else:
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        if plugin == "auto" and r.perf is None:
            print("run.py: note: no instruction counts (plugin not built, see targets/README.md)",
                  file=sys.stderr)
        print(_summary(r), file=sys.stderr)
    return r.exit_code


if __name__ == "__main__":
    sys.exit(main())
