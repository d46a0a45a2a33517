"""Bounded inputs (issue 19 part 1, docs/limits.md): a device or an endless file given as a
graph, .tflite, .npy or program is refused at once with one line and exit 2; a program
whose region size was corrupted is refused before its arenas are allocated (time and peak
memory measured on the child process); a section table that does not fit the head is
refused."""
from __future__ import annotations

import os
import struct
import subprocess
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from e2e_util import find_cli, program_format_major, run_cli
from tflite_util import MODELS, available

pytestmark = pytest.mark.skipif(not available(), reason="../shared MLPerf Tiny models missing")

KWS = MODELS / "kws_ref_model.tflite"


def _run_measured(args: list[str]) -> tuple[int, str, float, int]:
    """Runs the CLI; returns (exit code, stderr, seconds, peak RSS in KiB of that child)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        elapsed = time.monotonic() - t0
    stderr = proc.stderr.read().decode()
    proc.stdout.close()
    proc.stderr.close()
    return os.waitstatus_to_exitcode(status), stderr, elapsed, usage.ru_maxrss


def _one_line_exit_2(code: int, stderr: str, elapsed: float, what: str):
    assert code == 2, f"{what}: exit {code}: {stderr}"
    assert stderr.count("\n") == 1 and stderr.startswith("error: "), f"{what}: {stderr!r}"
    assert elapsed < 2.0, f"{what}: took {elapsed:.2f} s"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("kws")
    run_cli(find_cli(), "compile", KWS, "--target", "an547", "-o", out / "prog")
    x = np.zeros((1, 49, 10, 1), np.int8)
    np.save(out / "x.npy", x)
    return out


@pytest.mark.parametrize("suffix", [".tfg", ".tflite", ".npy", ".bin", ""])
def test_dev_zero_is_refused_quickly(tmp_path, compiled, suffix):
    cli = find_cli()
    zero = tmp_path / f"zero{suffix}"
    zero.symlink_to("/dev/zero")
    if suffix == ".npy":
        args = [cli, "run", str(compiled / "prog" / "program.bin"), "-i", str(zero)]
    else:
        args = [cli, "inspect" if suffix in (".tfg", ".tflite") else "run", str(zero)]
        if args[1] == "run":
            args += ["-i", str(compiled / "x.npy")]
    code, stderr, elapsed, _ = _run_measured(args)
    _one_line_exit_2(code, stderr, elapsed, f"/dev/zero as {suffix or 'a file'}")


def _region_size_offset(image: bytes) -> int:
    sections = struct.unpack_from("<I", image, 24)[0]
    for s in range(sections):
        kind, offset = struct.unpack_from("<II", image, 32 + 16 * s)
        if kind == 1:
            return offset + 16  # first region record: name[16], then u32 size
    raise AssertionError("no REGIONS section")


def _repair_crc(image: bytearray):
    head = struct.unpack_from("<I", image, 16)[0]
    crc = zlib.crc32(bytes(image[16:head]), zlib.crc32(bytes(image[:12])))
    struct.pack_into("<I", image, 12, crc)


@pytest.mark.parametrize("repair", [False, True], ids=["crc-mismatch", "crc-repaired"])
def test_huge_region_size_is_refused_before_allocating(tmp_path, compiled, repair):
    cli = find_cli()
    image = bytearray((compiled / "prog" / "program.bin").read_bytes())
    at = _region_size_offset(image)
    struct.pack_into("<I", image, at, 0x7FFFFFF0)  # ~2 GiB arena
    if repair:
        _repair_crc(image)
    bad = tmp_path / "program.bin"
    bad.write_bytes(bytes(image))
    _, _, _, baseline = _run_measured([cli, "run", str(compiled / "prog" / "program.bin"),
                                       "-i", str(compiled / "x.npy")])
    code, stderr, elapsed, rss = _run_measured([cli, "run", str(bad), "-i",
                                                str(compiled / "x.npy")])
    _one_line_exit_2(code, stderr, elapsed, "huge region size")
    # Beyond the process start-up (timed on a file refused at its header): < 0.1 s.
    startup = min(_run_measured([cli, "run", str(_short_program(tmp_path)), "-i",
                                 str(compiled / "x.npy")])[2] for _ in range(3))
    assert elapsed - startup < 0.1, f"{elapsed:.3f} s, start-up {startup:.3f} s"
    assert ("CRC" in stderr) != repair, stderr
    assert rss - baseline < 10 * 1024, f"peak RSS {rss} KiB vs {baseline} KiB for a valid run"


def _short_program(tmp_path: Path) -> Path:
    """A 48-byte program whose header claims 16 sections (256 bytes of table), CRC valid."""
    image = bytearray(48)
    image[0:4] = b"TFPG"
    struct.pack_into("<HHIIIIII", image, 4, program_format_major(), 0, 48, 0, 48, 0, 16, 0)
    _repair_crc(image)
    bad = tmp_path / "short.bin"
    bad.write_bytes(bytes(image))
    return bad


def test_truncated_section_table_is_refused(tmp_path):
    bad = _short_program(tmp_path)
    x = tmp_path / "x.npy"
    np.save(x, np.zeros(4, np.int8))
    code, stderr, elapsed, _ = _run_measured([find_cli(), "run", str(bad), "-i", str(x)])
    _one_line_exit_2(code, stderr, elapsed, "truncated section table")
    assert "malformed section table" in stderr, stderr
