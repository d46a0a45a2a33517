"""Errors of the tinyforge Python side, with the same kinds and exit codes as the C++ CLI.

Every error has a kind (compiler/support/expected.h ErrorKind); the exit code of a command
is derived from the kind in `exit_code`, nowhere else (docs/decisions.md):

    invalid input  2   the input or command line is wrong (malformed file, bad option,
                       a model that does not fit the target, a NaN in a float input)
    unsupported    2   well-formed input tinyforge cannot handle (an op with no lowering)
    internal       1   a bug: an invariant that should hold does not (a board run that
                       differs from the host, a firmware fault)
    I/O            1   the system failed: a tool is missing, a build or a run timed out,
                       an output cannot be written
"""

from __future__ import annotations

import enum

EXIT_OK, EXIT_FAILURE, EXIT_INVALID = 0, 1, 2


class ErrorKind(enum.Enum):
    INVALID_INPUT = "invalid input"
    UNSUPPORTED = "unsupported"
    INTERNAL = "internal"
    IO = "I/O"


def exit_code(kind: ErrorKind) -> int:
    """The one mapping from an error's kind to a command's exit code."""
    return EXIT_INVALID if kind in (ErrorKind.INVALID_INPUT, ErrorKind.UNSUPPORTED) else EXIT_FAILURE


def kind_of_exit(code: int) -> ErrorKind:
    """The kind of a failed `tinyforge` subprocess, from its exit code (the inverse of
    `exit_code` up to the two kinds that share a code)."""
    return ErrorKind.INVALID_INPUT if code == EXIT_INVALID else ErrorKind.INTERNAL


class TinyforgeError(Exception):
    """An error with a kind; `exit_code` is what a command exits with."""

    kind: ErrorKind = ErrorKind.INVALID_INPUT

    def __init__(self, message: str, kind: ErrorKind | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind

    @property
    def exit_code(self) -> int:
        return exit_code(self.kind)


def escape(text: str) -> str:
    """Text copied from a file into a message: control characters and non-printable
    characters escaped (\\n, \\x1b, ...), so a message stays one line (as Quote in
    compiler/support/text.h does for the C++ side)."""
    return text.encode("unicode_escape").decode("ascii")


class ExportError(TinyforgeError, ValueError):
    """The model cannot be exported as given (e.g. a BatchNorm with no conv/linear before it)."""


class UnsupportedOpError(ExportError):
    """The captured graph contains an op the graph file cannot express.

    The message names the ATen op (e.g. ``aten.gelu.default``) and, when PyTorch recorded
    them, the ``file.py:LINE`` of the model source the op came from and its nn.Module path.
    A model with several unsupported ops gets one error listing them all (``errors``).
    """

    kind = ErrorKind.UNSUPPORTED

    def __init__(self, op: str, source: str | None, detail: str = "", module: str = "") -> None:
        self.op = op
        self.source = source
        self.detail = detail
        self.module = module  # the nn.Module path ("features.3.conv"), "" when unknown
        self.errors: list[UnsupportedOpError] = [self]  # every op, when several are reported
        super().__init__(f"unsupported op {self.describe()}")

    def describe(self) -> str:
        where = f" at {self.source}" if self.source else " (source line unknown)"
        mod = f" in module '{escape(self.module)}'" if self.module else ""
        extra = f": {self.detail}" if self.detail else ""
        return f"{self.op}{where}{mod}{extra}"

    @classmethod
    def combine(cls, errors: list[UnsupportedOpError]) -> UnsupportedOpError:
        """One error listing every unsupported op (one line); `op` is the first one's."""
        if len(errors) == 1:
            return errors[0]
        first = errors[0]
        combined = cls(first.op, first.source, first.detail, first.module)
        combined.errors = list(errors)
        listed = "; ".join(f"{i + 1}) {e.describe()}" for i, e in enumerate(errors))
        combined.args = (f"{len(errors)} unsupported ops: {listed}",)
        return combined


class BoardError(TinyforgeError):
    """A board run or profile that could not be done (tinyforge.board). Without a kind it is
    internal: a build failure, a firmware fault, a board run that differs from the host."""

    kind = ErrorKind.INTERNAL
