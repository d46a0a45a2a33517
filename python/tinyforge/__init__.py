"""tinyforge front end: PyTorch models -> graph files for the tinyforge compiler.

Public API: :func:`export`, :func:`load_graph`, :mod:`models`, :class:`UnsupportedOpError`,
:func:`cmake_dir` (the CMake package: ``-Dtinyforge_DIR=$(python -c "import tinyforge;
print(tinyforge.cmake_dir())")``, docs/deploying.md).

The names are loaded on first use (PEP 562), so that `python -m tinyforge.board` (the board
driver behind `tinyforge run --board` / `tinyforge profile`) starts without importing torch.
The modules that import torchao import `_quiet` first themselves.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .version import __version__

# public name -> submodule defining it (None: the name is the submodule)
_LAZY = {
    "ExportError": "errors",
    "UnsupportedOpError": "errors",
    "ExportResult": "export",
    "export": "export",
    "GraphFormatError": "graph_file",
    "load_graph": "graph_file",
    "cmake_dir": "paths",
    "TinyforgeQuantizer": "quantizer",
    "models": None,
}

__all__ = [
    "ExportError",
    "ExportResult",
    "GraphFormatError",
    "TinyforgeQuantizer",
    "UnsupportedOpError",
    "__version__",
    "cmake_dir",
    "export",
    "load_graph",
    "models",
]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'tinyforge' has no attribute '{name}'")
    if _LAZY[name] != "paths":  # cmake_dir() needs no torch
        importlib.import_module("._quiet", __name__)  # imports torchao quietly, once
    module = importlib.import_module(f".{_LAZY[name] or name}", __name__)
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # for type checkers and IDEs
    from . import models
    from .errors import ExportError, UnsupportedOpError
    from .export import ExportResult, export
    from .graph_file import GraphFormatError, load_graph
    from .paths import cmake_dir
    from .quantizer import TinyforgeQuantizer
