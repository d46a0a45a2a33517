"""The Python side's error kinds and exit codes match the C++ CLI's (tools/tinyforge/commands.h
ExitCode): invalid input and unsupported exit 2, internal and I/O exit 1."""
from __future__ import annotations

import pytest

from tinyforge.errors import (EXIT_FAILURE, EXIT_INVALID, BoardError, ErrorKind, ExportError,
                              TinyforgeError, UnsupportedOpError, escape, exit_code,
                              kind_of_exit)
from tinyforge.graph_file import GraphFormatError


@pytest.mark.parametrize("kind, code", [(ErrorKind.INVALID_INPUT, EXIT_INVALID),
                                        (ErrorKind.UNSUPPORTED, EXIT_INVALID),
                                        (ErrorKind.INTERNAL, EXIT_FAILURE),
                                        (ErrorKind.IO, EXIT_FAILURE)])
def test_exit_code_of_each_kind(kind, code):
    assert exit_code(kind) == code
    assert TinyforgeError("x", kind).exit_code == code
    assert exit_code(kind_of_exit(code)) == code


def test_default_kinds():
    assert TinyforgeError("x").kind is ErrorKind.INVALID_INPUT
    assert ExportError("x").kind is ErrorKind.INVALID_INPUT
    assert GraphFormatError("x").exit_code == EXIT_INVALID
    assert UnsupportedOpError("aten.gelu.default", None).kind is ErrorKind.UNSUPPORTED
    assert BoardError("firmware fault").kind is ErrorKind.INTERNAL
    assert BoardError("bad input", ErrorKind.INVALID_INPUT).exit_code == EXIT_INVALID
    assert isinstance(ExportError("x"), ValueError)  # callers catching ValueError still work


def test_escape_keeps_a_message_on_one_line():
    assert escape("conv\n1\x1b[0m") == "conv\\n1\\x1b[0m"
    assert escape("plain_name.q") == "plain_name.q"
