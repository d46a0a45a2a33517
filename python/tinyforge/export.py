"""``tinyforge.export``: PyTorch model -> graph file (float, or int8 QDQ via PT2E).

Pipeline (one screen on purpose):

1. ``torch.export.export(model.eval(), example_inputs).module()`` -> ATen GraphModule;
   GRU / LSTM (and their cells) unrolled by PyTorch's decompositions, the zero initial
   state folded to constants (recurrent.py);
2. drop no-ops (dropout, clone, ...), rewrite conv1d / 1-D pools / conv_transpose2d as 2-D
   convs and pools (conv_rewrite.py), fold BatchNorm into the conv2d/linear before it;
3. lower the float graph once: this rejects unsupported ops before any calibration runs;
4. quantizing: ``prepare_pt2e`` with :class:`TinyforgeQuantizer`, run the calibration
   batches, ``convert_pt2e(fold_quantize=True)`` -> QDQ graph with int8 weights and int32
   bias as constants; lower that graph instead;
5. serialise (docs/graph-format.md) and, given a path, write the file.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.fx

from . import _quiet  # noqa: F401  (quiet torchao import)
from .attention import decompose_attention
from .binary_ops import canonicalize_binary
from .conv_rewrite import rewrite_convs
from .pixel_shuffle import expand_pixel_shuffle
from .tile import expand_repeats
from .fold import fold_batchnorm, remove_noops, unshare_biases
from .graph_file import serialize
from .aten_ops import KEEP_FLOAT_KEY
from .errors import UnsupportedOpError
from .lower import Lowering, check_supported
from .nodeinfo import module_path_of, source_of, target_name
from .matmul_ops import rewrite_einsum
from .quantizer import TinyforgeQuantizer
from .recurrent import decompose_recurrent, fold_factories, slices_for_splits, unflip_steps
from .version import __version__
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
from torchao.quantization.pt2e.quantizer import Quantizer


@dataclass
class ExportResult:
    """What :func:`export` produced.

    ``reference`` is the oracle for the compiled model: the BN-folded float GraphModule for
    ``kind == "float"``, PyTorch's converted PT2E GraphModule for ``kind == "qdq"``. Called
    with the example inputs' shapes, it computes exactly what the graph file describes.
    """

    path: Path | None
    graph: dict[str, Any]
    reference: torch.fx.GraphModule
    kind: str
    data: bytes  # the complete file image (also when no path was given)


def _as_tuple(inputs: Any) -> tuple[torch.Tensor, ...]:
    return (inputs,) if isinstance(inputs, torch.Tensor) else tuple(inputs)


def _calibration_batches(
    calibration: Iterable[Any], example: tuple[torch.Tensor, ...]
) -> Iterable[tuple[torch.Tensor, ...]]:
    """Yield example-shaped input tuples. A batch whose dim 0 is a multiple of the example's
    (other dims equal) is split along dim 0: the captured graph has a static batch size."""
    for item in calibration:
        batch = _as_tuple(item)
        if len(batch) != len(example):
            raise ValueError(f"calibration item has {len(batch)} inputs, model takes {len(example)}")
        if all(b.shape == e.shape for b, e in zip(batch, example)):
            yield batch
            continue
        n0 = example[0].shape[0] if example[0].dim() else 1
        ok = all(
            b.dim() == e.dim() and b.dim() > 0 and b.shape[1:] == e.shape[1:] and b.shape[0] % n0 == 0
            for b, e in zip(batch, example)
        )
        if not ok:
            shapes = [tuple(b.shape) for b in batch]
            raise ValueError(f"calibration shapes {shapes} do not match the example inputs")
        yield from zip(*(torch.split(b, n0) for b in batch))


def _capture(model: torch.nn.Module, example: tuple[torch.Tensor, ...]) -> torch.fx.GraphModule:
    was_training = model.training
    model.eval()
    try:
        with warnings.catch_warnings():
            # nn.GRU / nn.LSTM re-assign their weight list in forward; export warns, harmlessly
            warnings.filterwarnings("ignore", message=r"The tensor attributes .*_flat_weights")
            ep = torch.export.export(model, example)
        ep, unrolled = decompose_recurrent(ep)  # GRU / LSTM unrolled
        gm = ep.module()
    finally:
        model.train(was_training)
    remove_noops(gm)
    fold_factories(gm)  # zeros initial state -> constants
    unflip_steps(gm)  # a reverse direction reads the steps backwards
    slices_for_splits(gm, every=unrolled)  # the gates: slices sharing the linear's parameters
    expand_pixel_shuffle(gm)  # reshape / permute / reshape: shared parameters, one transpose
    expand_repeats(gm)  # repeat / expand: cats of copies
    decompose_attention(gm)  # scaled_dot_product_attention / baddbmm as matmul, softmax, ...
    canonicalize_binary(gm)  # scalars / constants as tensors: the handlers see nodes
    rewrite_einsum(gm)  # matrix-product einsums as (transpose +) matmul
    rewrite_convs(gm, example)  # conv1d, 1-D pools, conv_transpose2d as 2-D ops
    check_supported(gm)  # every unsupported op at once, before folding or calibration
    fold_batchnorm(gm)
    return gm


def _mark_keep_float(gm: torch.fx.GraphModule, keep: list[str]) -> None:
    """Marks the ops export's keep_float names (a module path, its children included, or an
    ATen op name) with KEEP_FLOAT_KEY; an entry that matches no op is an error."""
    for entry in keep:
        hit = False
        for node in gm.graph.nodes:
            if node.op != "call_function":
                continue
            path = module_path_of(node)
            op = str(getattr(node.target, "_schema", None) and node.target._schema.name or "")
            if path == entry or path.startswith(entry + ".") or op.split("::")[-1] == entry:
                node.meta[KEEP_FLOAT_KEY] = True
                hit = True
        if not hit:
            raise ValueError(f"keep_float: {entry!r} matches no module path or op of the model")


def _quantize(
    gm: torch.fx.GraphModule,
    example: tuple[torch.Tensor, ...],
    calibration: Iterable[Any],
    quantizer: Quantizer,
) -> torch.fx.GraphModule:
    unshare_biases(gm)  # int32 bias scale = input scale * weight scale, per reader
    prepared = prepare_pt2e(gm, quantizer)
    seen = 0
    with torch.no_grad():
        for batch in _calibration_batches(calibration, example):
            prepared(*batch)
            seen += 1
    if seen == 0:
        raise ValueError("calibration yielded no batches: cannot observe activation ranges")
    return convert_pt2e(prepared, fold_quantize=True)


def export(
    model: torch.nn.Module,
    example_inputs: Any,
    calibration: Iterable[Any] | None = None,
    path: str | Path | None = None,
    *,
    quantize: bool | None = None,
    name: str | None = None,
    quantizer: Quantizer | None = None,
    keep_float: Iterable[str] = (),
    allow_float: bool = True,
) -> ExportResult:
    """Export ``model`` to a tinyforge graph file.

    Args:
      model: the module; it is exported in eval mode (its training flag is restored after).
      example_inputs: a tensor or a tuple of tensors; fixes every shape in the graph.
      calibration: iterable of inputs (tensor or tuple per item, example-shaped or a batch
        of them along dim 0). Required when quantizing.
      path: where to write the ``.tfg`` file; None keeps it in memory (``result.data``).
      quantize: None = quantize iff ``calibration`` is given; False = float graph even
        with calibration; True = QDQ graph (calibration required).
      name: graph name (default: the model's class name).
      quantizer: a PT2E Quantizer replacing :class:`TinyforgeQuantizer` (advanced).
      keep_float: ops to keep in float32 even where an int8 lowering exists: module paths
        (``"head"``: every op of that module and its children) or op names (``"add"``,
        ``"sigmoid"``, the ATen name without namespace/overload). Each entry must match an
        op; the matched ops must have a float kernel (add, sub, mul, maximum, minimum,
        sigmoid, tanh, and the float fallback functions).
      allow_float: False raises instead of writing float fallback ops (an op with no int8
        lowering, or kept by keep_float): one UnsupportedOpError listing every such op with
        its module path and the reason (`compile --no-float` is the same check on a graph
        file). The default, True, lets them run in float32 (docs/decisions.md 47).

    Raises:
      UnsupportedOpError: an op the graph file cannot express; names the ATen op and the
        ``file.py:LINE`` it came from. Raised before any calibration runs.
      ValueError: missing/ill-shaped calibration.
    """
    example = _as_tuple(example_inputs)
    if quantize is None:
        quantize = calibration is not None
    if quantize and calibration is None:
        raise ValueError("quantize=True needs calibration data")
    name = name or type(model).__name__

    gm = _capture(model, example)
    _mark_keep_float(gm, list(keep_float))
    builder = Lowering(gm, example, name, "float").run()  # also the op-coverage check
    reference = gm
    if quantize:
        assert calibration is not None
        reference = _quantize(gm, example, calibration, quantizer or TinyforgeQuantizer())
        lowering = Lowering(reference, example, name, "qdq")
        builder = lowering.run()
        if not allow_float and lowering.float_ops:
            raise UnsupportedOpError.combine([
                UnsupportedOpError(target_name(n), source_of(n),
                                   f"would run in float32 (allow_float=False): {why}",
                                   module_path_of(n))
                for n, why in lowering.float_ops])

    producer = f"tinyforge {__version__}, torch {torch.__version__}"
    graph, blob = builder.build(producer)
    data = serialize(graph, blob)
    out_path = None
    if path is not None:
        out_path = Path(path)
        out_path.write_bytes(data)
    return ExportResult(path=out_path, graph=graph, reference=reference, kind=builder.kind, data=data)
