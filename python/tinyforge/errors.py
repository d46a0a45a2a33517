"""Exceptions raised by the tinyforge front end."""

from __future__ import annotations


class ExportError(ValueError):
    """The model cannot be exported as given (e.g. a BatchNorm with no conv/linear before it)."""


class UnsupportedOpError(ExportError):
    """The captured graph contains an op the graph file cannot express.

    The message names the ATen op (e.g. ``aten.gelu.default``) and, when PyTorch recorded
    it, the ``file.py:LINE`` of the model source the op came from.
    """

    def __init__(self, op: str, source: str | None, detail: str = "") -> None:
        self.op = op
        self.source = source
        where = f" at {source}" if source else " (source line unknown)"
        extra = f": {detail}" if detail else ""
        super().__init__(f"unsupported op {op}{where}{extra}")
