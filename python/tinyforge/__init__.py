"""tinyforge front end: PyTorch models -> graph files for the tinyforge compiler.

Public API: :func:`export`, :func:`load_graph`, :mod:`models`, :class:`UnsupportedOpError`.
"""

from . import _quiet  # noqa: F401  (must come first: imports torchao quietly)
from . import models
from .errors import ExportError, UnsupportedOpError
from .export import ExportResult, export
from .graph_file import GraphFormatError, load_graph
from .quantizer import TinyforgeQuantizer
from .version import __version__

__all__ = [
    "ExportError",
    "ExportResult",
    "GraphFormatError",
    "TinyforgeQuantizer",
    "UnsupportedOpError",
    "__version__",
    "export",
    "load_graph",
    "models",
]
