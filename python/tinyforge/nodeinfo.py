"""Where an FX node came from: the model source line and the module path.

torch.export records, per node, ``meta["stack_trace"]`` (a traceback through the model's
forward, innermost frame last) and ``meta["nn_module_stack"]`` (the module hierarchy).
The user's line is the innermost frame outside torch/torchao/tinyforge's own export
machinery: the innermost frame is usually inside ``torch/nn/modules/*.py``, which is not
what a user wants to read in a diagnostic.
"""

from __future__ import annotations

import os
import re

import torch
import torch.fx

_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _library_roots() -> tuple[str, ...]:
    roots = [os.path.dirname(torch.__file__)]
    try:
        import torchao

        roots.append(os.path.dirname(torchao.__file__))
    except ImportError:  # pragma: no cover - torchao is a dependency
        pass
    return tuple(os.path.join(r, "") for r in roots)


_LIBRARY_ROOTS = _library_roots()


def source_of(node: torch.fx.Node) -> str | None:
    """``"file.py:LINE"`` of the innermost non-library frame of the node, or None."""
    trace = node.meta.get("stack_trace")
    if not trace:
        return None
    frames = _FRAME.findall(trace)
    for path, line in reversed(frames):
        if not path.startswith(_LIBRARY_ROOTS):
            return f"{os.path.basename(path)}:{line}"
    return None


def module_path_of(node: torch.fx.Node) -> str:
    """Qualified name of the innermost module the node ran in (``"features.0.conv"``), or ""."""
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return ""
    path, _ = list(stack.values())[-1]
    return str(path)


def target_name(node: torch.fx.Node) -> str:
    """Printable op name, e.g. ``aten.gelu.default`` for ``torch.ops.aten.gelu.default``."""
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return f"{target.namespace}.{target._schema.name.split('::')[-1]}.{target._overloadname}"
    if isinstance(target, str):
        return f"{node.op}:{target}"
    return getattr(target, "__qualname__", None) or repr(target)
