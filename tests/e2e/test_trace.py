"""On-device profiling (issue 18): the runtime's tracer (tinyforge/tf_trace.h) on the
emulated boards, decoded by `tinyforge profile --trace`, against the QEMU plugin's counts.

Under QEMU -icount (shift=0) the virtual clock advances 1 ns per instruction, so the SysTick
(the tracer's fallback: QEMU's DWT cycle counter reads 0) counts one cycle per 1e9 / cpu_hz
instructions: an op's traced cycles times that are its plugin instructions plus the hook's
own share, a constant, within one tick. Also: the decoder's one-line refusals (exit 2).
"""
from __future__ import annotations

import json
import struct
import subprocess

import numpy as np
import pytest

from tinyforge import board as tfboard
from tinyforge import board_run, board_trace
from tinyforge.board_catalog import board as board_json

from e2e_util import board_environment, reference_model

# an547: 31.25 instructions per SysTick cycle (32 MHz), an386: 40 (25 MHz).
BOARDS = ["an547", "an386"]


@pytest.fixture(scope="module", autouse=True)
def toolchain(cli):
    with board_environment(cli):
        yield


def _cli(cli: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """board -> (plugin per-op instructions, trace.bin, compiled program dir, cpu_hz): one
    firmware build per board, one plugin run and one traced run of the same input."""
    model = reference_model("ad")
    out = {}
    for board in BOARDS:
        tmp = tmp_path_factory.mktemp(board)
        with tfboard.BoardTree(board) as tree:
            compiled, arrays, _, elf = board_run._prepare(model, board, tree, None, 0)
            (tmp / "in.bin").write_bytes(b"".join(a[0].tobytes() for a in arrays))
            r = board_run._firmware(elf, board, ["in.bin", "out.bin", "profile"], tmp,
                                    timeout=60)
            insns = [e.insns for e in r.perf.events if e.region == 1]
            (tmp / "plugin_out.bin").write_bytes((tmp / "out.bin").read_bytes())
            t = board_run._firmware(elf, board, ["in.bin", "out.bin", "trace", "trace.bin"],
                                    tmp, timeout=60)
            assert "trace: systick" in t.stdout, t.stdout
            assert (tmp / "out.bin").read_bytes() == (tmp / "plugin_out.bin").read_bytes()
            program = tmp / "program"
            program.mkdir()
            for f in compiled.dir.iterdir():
                if f.is_file():
                    (program / f.name).write_bytes(f.read_bytes())
        hz = board_json(board)["qemu"]["cpu_hz"]
        out[board] = (insns, tmp / "trace.bin", program, hz)
    return out


@pytest.mark.parametrize("board", BOARDS)
def test_trace_matches_the_plugin_op_by_op(traced, board, cli):
    insns, trace, program, hz = traced[board]
    proc = _cli(cli, "profile", "--trace", trace, "--program", program, "--json")
    assert proc.returncode == 0, proc.stderr
    p = json.loads(proc.stdout)
    report = json.loads((program / "report.json").read_text())
    assert p["schema"] == "tinyforge.profile/1" and p["measure"] == "cycles"
    assert p["trace"]["cycle_source"] == "systick" and p["trace"]["clock_hz"] == hz
    assert [o["name"] for o in p["ops"]] == [o["name"] for o in report["ops"]]
    assert [o["kernel"] for o in p["ops"]] == [o["kernel"] for o in report["ops"]]
    assert len(p["ops"]) == len(insns) and not any(o["wrapped"] for o in p["ops"])
    per_tick = 1e9 / hz
    # Each op: traced cycles x instructions per cycle = plugin instructions + the part of
    # the hook inside the op's window (the same code around every op, ~10 to 15
    # instructions), up to one tick of quantization either way.
    excess = np.array([o["cycles"] * per_tick - n for o, n in zip(p["ops"], insns)])
    assert np.all(excess > -per_tick) and np.all(excess < per_tick + 30), excess
    assert excess.max() - excess.min() <= 2 * per_tick, excess
    # Ops of 100 ticks or more: within 2 % of the plugin's count (the bound above, one tick
    # and the hook, is under 1.8 % of 100 ticks).
    big = [(o["cycles"] * per_tick) / n for o, n in zip(p["ops"], insns) if n > 100 * per_tick]
    assert len(big) >= 5 and 0.98 < min(big) and max(big) < 1.02, big
    assert p["cycles_in_ops"] == sum(o["cycles"] for o in p["ops"])
    # The text table (in-process: the CLI's delegation is covered above): the same rows.
    text = board_run.profile_text(board_trace.profile_from_trace(trace, program))
    assert "cycles counted on the device (systick" in text
    for o in p["ops"]:
        assert o["name"] in text


@pytest.mark.parametrize("edit, message", [
    (lambda b: b[:20], "truncated trace: 20 bytes"),
    (lambda b: b[:-5], "truncated trace: the header counts"),
    (lambda b: b"XXXX" + b[4:], "not a tinyforge trace"),
    (lambda b: b[:4] + struct.pack("<H", 9) + b[6:], "trace format version 9"),
    (lambda b: b[:32] + struct.pack("<H", 999) + b[34:], "op index 999 out of range"),
    (lambda b: b[:36] + struct.pack("<I", 1234) + b[40:], "record 0: kernel id 0x000004d2"),
    (lambda b: b[:16] + struct.pack("<I", 7) + b[20:], "recorded by another program"),
    (lambda b: b[:24] + struct.pack("<I", 2) + b[28:], "2 records, not one per op"),
    (lambda b: b[:28] + struct.pack("<I", 3) + b[32:], "the buffer was too small"),
])
def test_bad_traces_are_refused_in_one_line(traced, edit, message, tmp_path, capsys):
    _, trace, program, _ = traced["an547"]
    bad = tmp_path / "bad.bin"
    bad.write_bytes(edit(trace.read_bytes()))
    with pytest.raises(tfboard.BoardError, match=message):
        board_trace.profile_from_trace(bad, program)
    # The command line (in-process; one subprocess below): exit 2, one line on stderr.
    assert tfboard.main(["profile", "--trace", str(bad), "--program", str(program)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and message in err, err


def test_trace_command_line(traced, cli, capsys):
    _, trace, program, _ = traced["an547"]
    proc = _cli(cli, "profile", "--trace", program / "program.bin", "--program", program)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (f"error: {program / 'program.bin'}: not a tinyforge trace "
                                   "(magic b'TFPG', expected b'TFTR'): give the buffer "
                                   "tf_trace_init wrote"), proc.stderr
    for args, said in ((["--trace", str(trace)], "--program"),
                       (["--trace", str(trace), "--program", str(trace)], "not a directory"),
                       (["--trace", str(trace), "--program", str(program), "--board", "an547"],
                        "no MODEL, no --board")):
        assert tfboard.main(["profile", *args]) == 2
        assert said in capsys.readouterr().err
    # A whole-buffer dump (trailing bytes after the records) is a trace too.
    dump = trace.parent / "dump.bin"
    dump.write_bytes(trace.read_bytes() + bytes(100))
    assert tfboard.main(["profile", "--trace", str(dump), "--program", str(program)]) == 0
