"""Exit codes come from the error's kind (docs/decisions.md): invalid or unsupported input 2,
internal error or failed I/O 1; every failure is one line. Includes the cases of the
hardening issue: a model that does not fit exits 2, an input too large for memory exits 2
with a message (never "std::bad_alloc"), text from a file is escaped, a NaN input is
rejected."""
from __future__ import annotations

import resource
import struct
import subprocess

import numpy as np
import pytest
import torch

import tinyforge
from e2e_util import export_tiny, run_cli
from tinyforge import board_run
from tinyforge.errors import EXIT_FAILURE, EXIT_INVALID, BoardError, ErrorKind


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A qdq graph: Linear 8->4 + ReLU, input [1, 8] float."""
    return export_tiny(tmp_path_factory.mktemp("exit_codes") / "tiny.tfg")


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.strip()
    assert err.startswith("error: ") and "\n" not in err, err
    return err


def test_invalid_input_exits_2(cli, tmp_path):
    bad = tmp_path / "bad.tfg"
    bad.write_bytes(b"not a graph")
    proc = run_cli(cli, "inspect", bad, check=False)
    assert proc.returncode == EXIT_INVALID
    _one_line_error(proc)


def test_failed_write_exits_1(cli, tiny, tmp_path):
    # An output that cannot be written is an I/O failure, not bad input.
    proc = run_cli(cli, "compile", tiny, "-o", tmp_path / "no" / "such" / "dir" / "x.tfg",
                   check=False)
    assert proc.returncode == EXIT_FAILURE, proc.stderr
    assert "cannot open for writing" in _one_line_error(proc)


def test_does_not_fit_exits_2(cli, tiny, tmp_path):
    # The MPS2 AN385's block RAM (bram) is 16 KiB: an int8 input of 32 KiB does not fit there.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32768, 4)).eval()
    calib = [(torch.randn(1, 32768),) for _ in range(2)]
    big = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / "big.tfg").path
    proc = run_cli(cli, "compile", big, "--target", "an385", "--place", "input_1.q=bram", "-o",
                   tmp_path / "out", check=False)
    assert proc.returncode == EXIT_INVALID, proc.stderr
    assert "does not fit: region 'bram' needs" in _one_line_error(proc)


@pytest.mark.parametrize("value", ["fast", "", "Size"])
def test_bad_optimize_value_exits_2(cli, tiny, tmp_path, value):
    """`--optimize` takes speed or size (docs/decisions.md 59): anything else is one line."""
    proc = run_cli(cli, "compile", tiny, "--target", "an547", "--optimize", value, "-o",
                   tmp_path / "out", check=False)
    assert proc.returncode == EXIT_INVALID, proc.stderr
    assert f"--optimize: '{value}' is not speed or size" in _one_line_error(proc)


def _npy(descr: str, shape: str, data: bytes) -> bytes:
    header = "{'descr': " + repr(descr) + ", 'fortran_order': False, 'shape': " + shape + ", }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def test_text_from_a_file_is_escaped(cli, tiny, tmp_path):
    x = tmp_path / "x.npy"
    x.write_bytes(_npy("<f4\nrm -rf /\x1b[31m", "(1, 8)", bytes(32)))
    proc = run_cli(cli, "run", tiny, "-i", x, check=False)
    assert proc.returncode == EXIT_INVALID
    err = _one_line_error(proc)  # the newline in the dtype is not printed raw
    assert "\\n" in err and "\x1b" not in err and "\\x1b" in err, err


@pytest.mark.parametrize("value, name", [(np.nan, "nan"), (np.inf, "inf"), (-np.inf, "-inf")])
def test_nonfinite_input_is_rejected(cli, tiny, tmp_path, value, name):
    x = np.zeros((1, 8), np.float32)
    x[0, 5] = value
    path = tmp_path / "x.npy"
    np.save(path, x)
    for args in (("run", tiny, "-i", path), ("compare", tiny, "--against", "qdq", "-i", path)):
        proc = run_cli(cli, *args, check=False)
        assert proc.returncode == EXIT_INVALID, proc.stderr
        err = _one_line_error(proc)
        assert f"{path}: element 5 (index [0,5]) is {name}" in err, err
    finite = tmp_path / "ok.npy"
    np.save(finite, np.zeros((1, 8), np.float32))
    assert run_cli(cli, "run", tiny, "-i", finite).returncode == 0


def test_nonfinite_board_input_is_rejected():
    x = np.zeros((2, 3), np.float32)
    x[1, 2] = np.nan
    with pytest.raises(BoardError) as e:
        board_run.check_finite(x, "x.npy")
    assert e.value.kind is ErrorKind.INVALID_INPUT and e.value.exit_code == EXIT_INVALID
    assert str(e.value).startswith("x.npy: element 5 (index [1,2]) is nan")
    board_run.check_finite(np.zeros(3, np.int8), "int8 inputs have no NaN")


def _limit_memory():
    limit = 1 << 30  # 1 GiB of address space: /dev/zero runs out of it in well under a second
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.parametrize("command", [("run", "{f}"), ("inspect", "{f}"),
                                     ("run", "{g}", "-i", "{f}")])
def test_input_too_large_for_memory_exits_2(cli, tiny, command):
    args = [a.format(f="/dev/zero", g=tiny) for a in command]
    proc = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=120,
                          preexec_fn=_limit_memory)
    assert proc.returncode == EXIT_INVALID, proc.stderr
    err = _one_line_error(proc)
    assert "bad_alloc" not in err and "internal error" not in err, err
