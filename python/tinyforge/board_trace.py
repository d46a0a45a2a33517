"""On-device traces (runtime/include/tinyforge/tf_trace.h, docs/trace-format.md): the
decoder and the per-op profile of `tinyforge profile --trace trace.bin --program DIR`.

The profile has the shape of the QEMU profile (board_run.profile, schema
tinyforge.profile/1) with cycles where that one has instructions: per op "cycles",
"cycles_per_mac" and "share"; "cycles_in_ops"; "measure": "cycles". What only the firmware
build knows (stack, flash) is None.
"""
from __future__ import annotations

import dataclasses
import struct
from pathlib import Path

from .board_build import read_compiled
from .board_catalog import board as board_json
from .errors import BoardError, ErrorKind

MAGIC = b"TFTR"
VERSION = 1
HEADER = struct.Struct("<4sHHHBBIIIII")  # 32 bytes, docs/trace-format.md
RECORD = struct.Struct("<HHII")          # 12 bytes
SOURCES = {1: "dwt", 2: "systick", 3: "custom"}
FULL, WRAPPED = 1, 2
REC_WRAPPED = 1


@dataclasses.dataclass
class Record:
    op: int
    flags: int
    kernel_id: int
    cycles: int


@dataclasses.dataclass
class Trace:
    version: int
    source: str
    flags: int
    clock_hz: int
    program_crc: int
    num_ops: int
    dropped: int
    records: list[Record]


def _bad(path, what: str) -> BoardError:
    return BoardError(f"{path}: {what}", ErrorKind.INVALID_INPUT)


def read_trace(path: str | Path) -> Trace:
    """The trace in PATH; BoardError (invalid input, one line) if it is not a whole trace.
    Bytes after the last record are ignored (a dump of the whole buffer is a trace)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise _bad(path, f"cannot read ({e.strerror})") from None
    if len(data) < HEADER.size:
        raise _bad(path, f"truncated trace: {len(data)} bytes, the header alone is "
                         f"{HEADER.size} (drain tf_trace_bytes() bytes of the buffer)")
    (magic, version, header_bytes, record_bytes, source, flags, clock_hz, crc, num_ops, count,
     dropped) = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise _bad(path, f"not a tinyforge trace (magic {magic!r}, expected {MAGIC!r}): give "
                         "the buffer tf_trace_init wrote")
    if version != VERSION:
        raise _bad(path, f"trace format version {version}, this tinyforge reads version "
                         f"{VERSION}: decode it with the tinyforge that built the firmware")
    if header_bytes != HEADER.size or record_bytes != RECORD.size or source not in SOURCES:
        raise _bad(path, f"malformed trace header (header {header_bytes} bytes, records "
                         f"{record_bytes} bytes, cycle source {source})")
    need = HEADER.size + count * RECORD.size
    if len(data) < need:
        raise _bad(path, f"truncated trace: the header counts {count} records ({need} bytes), "
                         f"the file has {len(data)} bytes")
    records = [Record(*RECORD.unpack_from(data, HEADER.size + k * RECORD.size))
               for k in range(count)]
    return Trace(version, SOURCES[source], flags, clock_hz, crc, num_ops, dropped, records)


def kernel_id(symbol: str) -> int:
    """FNV-1a 32 of the kernel's symbol (runtime/include/tinyforge/kernel_ids.h KernelId)."""
    h = 2166136261
    for c in symbol.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


def profile_from_trace(trace_path: str | Path, program_dir: str | Path) -> dict:
    """The per-op profile of a trace recorded by the program compiled into PROGRAM_DIR
    (`tinyforge compile --target B -o DIR`); BoardError (invalid input) if they differ."""
    program_dir = Path(program_dir)
    if not program_dir.is_dir():
        raise _bad(program_dir, "not a directory: give --program the `tinyforge compile "
                                "--target BOARD -o DIR` directory of the traced firmware")
    compiled = read_compiled(program_dir)
    t = read_trace(trace_path)
    ops = compiled.report["ops"]
    crc = struct.unpack_from("<I", (program_dir / "program.bin").read_bytes(), 12)[0]
    if (t.program_crc and t.program_crc != crc) or (t.num_ops and t.num_ops != len(ops)):
        raise _bad(trace_path, f"recorded by another program (CRC {t.program_crc:#010x}, "
                               f"{t.num_ops} ops) than {program_dir} (CRC {crc:#010x}, "
                               f"{len(ops)} ops): give --program the traced firmware's model")
    if t.dropped or t.flags & FULL:
        raise _bad(trace_path, f"the buffer was too small: {t.dropped} of "
                               f"{t.dropped + len(t.records)} records dropped (give the tracer "
                               f"32 + 12 x {len(ops)} = {32 + 12 * len(ops)} bytes)")
    for k, r in enumerate(t.records):
        if r.op >= len(ops):
            raise _bad(trace_path, f"record {k}: op index {r.op} out of range (the program "
                                   f"has {len(ops)} ops)")
        want = kernel_id(ops[r.op]["kernel"])
        if r.kernel_id != want:
            raise _bad(trace_path, f"record {k}: kernel id {r.kernel_id:#010x}, but op {r.op} "
                                   f"of {program_dir} runs {ops[r.op]['kernel']} "
                                   f"({want:#010x}): the trace is of another program")
    if [r.op for r in t.records] != list(range(len(ops))):
        raise _bad(trace_path, f"{len(t.records)} records, not one per op of the program's "
                               f"{len(ops)} in order (trace one run: tf_trace_reset before it)")
    total = sum(r.cycles for r in t.records)
    rows = []
    for op, r in zip(ops, t.records):
        rows.append({"index": op["index"], "name": op["name"], "type": op["type"],
                     "kernel": op["kernel"], "macs": op["macs"], "cycles": r.cycles,
                     "cycles_per_mac": round(r.cycles / op["macs"], 3) if op["macs"] else None,
                     "share": round(r.cycles / total, 4) if total else None,
                     "wrapped": bool(r.flags & REC_WRAPPED)})
    board = compiled.board
    try:
        cpu = board_json(board)["cpu"]
    except (BoardError, KeyError):
        cpu = None
    regions = {reg["name"]: reg["used"] for reg in compiled.report["regions"] if reg["used"]}
    return {
        "schema": "tinyforge.profile/1",
        "measure": "cycles",
        "board": board, "cpu": cpu, "model": str(program_dir),
        "model_name": compiled.report.get("model"),
        "ops": rows,
        "cycles_in_ops": total,
        "macs": sum(op["macs"] for op in ops),
        "trace": {"file": str(trace_path), "version": t.version, "cycle_source": t.source,
                  "clock_hz": t.clock_hz or None, "wrapped": bool(t.flags & WRAPPED),
                  "seconds_in_ops": round(total / t.clock_hz, 9) if t.clock_hz else None},
        "stack": {"high_water": None, "size": None},
        "ram": {"arena": regions, "arena_total": sum(regions.values()), "stack": None,
                "total": sum(regions.values())},
        "flash": None,
    }
