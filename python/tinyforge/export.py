"""``tinyforge.export``: PyTorch model -> graph file (float, or int8 QDQ via PT2E).

Pipeline (one screen on purpose):

1. ``torch.export.export(model.eval(), example_inputs).module()`` -> ATen GraphModule;
   GRU / LSTM (and their cells) unrolled by PyTorch's decompositions, the zero initial
   state folded to constants (recurrent.py);
2. drop no-ops (dropout, clone, ...), write ops the graph file lacks with ones it has
   (op_rewrite.py, norm_rewrite.py, ...), compute every op reading only constants (weights
   made in forward: weight normalization), rewrite conv1d / 1-D pools / conv_transpose2d as
   2-D convs and pools (conv_rewrite.py), fold BatchNorm into the conv2d/linear before it;
3. lower the float graph once: this rejects unsupported ops before any calibration runs;
4. quantizing: ``prepare_pt2e`` with :class:`TinyforgeQuantizer`, the two edges of each
   state pair made to share one observer, run the calibration batches (sequences through
   the state), ``convert_pt2e(fold_quantize=True)`` -> QDQ graph with int8 weights and
   int32 bias as constants; lower that graph instead;
5. serialise (docs/graph-format.md) and, given a path, write the file.
"""

from __future__ import annotations

import traceback
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.fx
from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

from . import _quiet  # noqa: F401  (quiet torchao import)
from .attention import decompose_attention
from .binary_ops import canonicalize_binary
from .conv_rewrite import rewrite_convs
from .norm_rewrite import rewrite_max_and_norms
from .op_rewrite import rewrite_ops
from .pixel_shuffle import expand_pixel_shuffle
from .tile import expand_repeats
from .fold import fold_batchnorm, remove_noops, unshare_biases
from .graph_file import serialize
from .aten_ops import KEEP_FLOAT_KEY
from .errors import ExportError, UnsupportedOpError
from .lower import Lowering, check_supported
from .nodeinfo import module_path_of, source_of, target_name
from .matmul_ops import rewrite_einsum
from .quantizer import TinyforgeQuantizer
from .recurrent import decompose_recurrent, fold_factories, slices_for_splits, unflip_steps
from .version import __version__
from torchao.quantization.pt2e.observer import FixedQParamsObserver, ObserverBase
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


def _as_tuple(inputs: Any, what: str = "example_inputs") -> tuple[torch.Tensor, ...]:
    """A tensor or a tuple / list of tensors as a tuple; anything else (a dict, nested
    structures, numbers) is refused in one line naming what to pass instead."""
    items = (inputs,) if isinstance(inputs, torch.Tensor) else inputs
    if not isinstance(items, (tuple, list)):
        raise ValueError(f"{what}: a {type(inputs).__name__}; pass a tensor or a tuple of "
                         "tensors, one per positional argument of forward")
    for i, t in enumerate(items):
        if not isinstance(t, torch.Tensor):
            raise ValueError(f"{what}: input {i} is a {type(t).__name__}; pass a tensor or a "
                             "tuple of tensors, one per positional argument of forward (a "
                             "model taking a dict or nested inputs needs a wrapper whose "
                             "forward takes the tensors)")
        if t.dtype == torch.float64:
            raise ValueError(f"{what}: input {i} is float64; models run in float32 and int8: "
                             "pass float32 inputs (and a float32 model: model.float())")
    return tuple(items)


def _calibration_batches(
    calibration: Iterable[Any], example: tuple[torch.Tensor, ...]
) -> Iterable[tuple[torch.Tensor, ...]]:
    """Yield example-shaped input tuples. A batch whose dim 0 is a multiple of the example's
    (other dims equal) is split along dim 0: the captured graph has a static batch size."""
    for item in calibration:
        batch = _as_tuple(item, "calibration item")
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
            try:
                ep = torch.export.export(model, example)
            except GuardOnDataDependentSymNode as e:
                raise _data_dependent_error(e) from e
        ep, unrolled = decompose_recurrent(ep)  # GRU / LSTM unrolled
        gm = ep.module()
    finally:
        model.train(was_training)
    remove_noops(gm)
    fold_factories(gm)  # zeros initial state -> constants
    unflip_steps(gm)  # a reverse direction reads the steps backwards
    slices_for_splits(gm, every=unrolled)  # the gates: slices sharing the linear's parameters
    expand_pixel_shuffle(gm)  # reshape / permute / reshape: shared parameters, one transpose
    rewrite_ops(gm)  # reflect pads, flip, roll, stack, norms, var / std, ... (op_rewrite)
    fold_factories(gm, any_constant=True)  # weights computed from parameters: constants
    expand_repeats(gm)  # repeat / expand: cats of copies
    decompose_attention(gm)  # scaled_dot_product_attention / baddbmm as matmul, softmax, ...
    canonicalize_binary(gm)  # scalars / constants as tensors: the handlers see nodes
    rewrite_einsum(gm)  # matrix-product einsums as (transpose +) matmul
    rewrite_max_and_norms(gm)  # adaptive max pools, max.dim, group / instance norm
    rewrite_convs(gm, example)  # conv1d, 1-D pools, conv_transpose2d as 2-D ops
    check_supported(gm)  # every unsupported op at once, before folding or calibration
    fold_batchnorm(gm)
    return gm


def _data_dependent_error(e: Exception) -> ExportError:
    """torch.export's failure on a Python branch over tensor values, as one line naming the
    branch's source line and, for the usual case, what to change."""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if "/torch/" not in f.filename or "/torch/nn/" in f.filename]
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    hint = "make the branch not depend on tensor values (compute it from shapes, or a constant)"
    if frames and frames[-1].name == "_detect_is_causal_mask":
        hint = ("nn.Transformer* compares the mask with a causal one unless told: pass "
                "is_causal=True with a causal mask, is_causal=False with any other")
    return ExportError(f"torch.export cannot trace a branch on tensor values{where}: {hint}")


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


def _resolve_state(gm: torch.fx.GraphModule, example: tuple[torch.Tensor, ...],
                   state: Iterable[Any]) -> list[tuple[int, int]]:
    """export's ``state`` as (input index, output index) pairs: an input by index or by its
    ``forward`` argument name, an output by index."""
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
    num_outputs = len(out) if isinstance(out, (tuple, list)) else 1
    pairs: list[tuple[int, int]] = []
    for entry in state:
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise ValueError(f"state: {entry!r} is not an (input, output) pair")
        i, o = entry
        if isinstance(i, str):
            if i not in names:
                raise ValueError(f"state: no input named {i!r} (inputs: {', '.join(names)})")
            i = names.index(i)
        if not (isinstance(i, int) and 0 <= i < len(example)):
            raise ValueError(f"state: input {i!r} out of range (the model takes {len(example)})")
        if not (isinstance(o, int) and 0 <= o < num_outputs):
            raise ValueError(f"state: output {o!r} out of range (the model returns "
                             f"{num_outputs})")
        if any(i == a or o == b for a, b in pairs):
            raise ValueError(f"state: input {i} or output {o} is already in a pair")
        pairs.append((i, o))
    return pairs


def _observer(gm: torch.fx.GraphModule, node: Any) -> ObserverBase | None:
    if not isinstance(node, torch.fx.Node) or node.op != "call_module":
        return None
    mod = getattr(gm, str(node.target), None)
    return mod if isinstance(mod, ObserverBase) else None


def _share_state_observers(prepared: torch.fx.GraphModule, pairs: list[tuple[int, int]]) -> None:
    """Each state pair's input edge and output edge observed by one observer, so that both
    get one scale and zero point (the runtime copies the output's bytes into the input). A
    fixed-parameter observer (tanh's, sigmoid's) is kept over a min/max one."""
    placeholders = [n for n in prepared.graph.nodes if n.op == "placeholder"]
    out = next(n for n in prepared.graph.nodes if n.op == "output").args[0]
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    for i, o in pairs:
        a = next((m for u in placeholders[i].users if (m := _observer(prepared, u))), None)
        b = _observer(prepared, outs[o])
        if a is None or b is None:
            raise ValueError(f"state ({i}, {o}): the input and the output must both be int8 "
                             "activations (one of them is not quantized)")
        if a is b:
            continue
        fixed_a, fixed_b = isinstance(a, FixedQParamsObserver), isinstance(b, FixedQParamsObserver)
        if fixed_a and fixed_b and not (torch.equal(a.scale, b.scale)
                                        and torch.equal(a.zero_point, b.zero_point)):
            raise ValueError(f"state ({i}, {o}): the input and the output have different fixed "
                             "quantization parameters")
        keep, drop = (b, a) if fixed_b and not fixed_a else (a, b)
        for name, mod in list(prepared.named_children()):
            if mod is drop:
                setattr(prepared, name, keep)
        # Derived parameters (a bias's: input scale x weight scale) name their observers.
        for mod in prepared.modules():
            if isinstance(getattr(mod, "obs_or_fqs", None), list):
                mod.obs_or_fqs = [keep if x is drop else x for x in mod.obs_or_fqs]


def _calibrate(prepared: torch.fx.GraphModule, example: tuple[torch.Tensor, ...],
               calibration: Iterable[Any], pairs: list[tuple[int, int]]) -> int:
    """Runs the calibration items; returns the number of calls. With state pairs, an item
    holding only the other inputs is a sequence: each stacked along dim 0 (a multiple of the
    example's dim 0), run call by call from the zero state, each call's state outputs fed
    back as the next call's state inputs."""
    state_in = {i: o for i, o in pairs}
    free = [i for i in range(len(example)) if i not in state_in]
    calls = 0
    for item in calibration:
        batch = _as_tuple(item, "calibration item")
        if not pairs or len(batch) != len(free):
            for b in _calibration_batches([item], example):
                prepared(*b)
                calls += 1
            continue
        steps = []
        for x, i in zip(batch, free):
            e = example[i]
            n0 = e.shape[0] if e.dim() else 1
            if x.dim() != e.dim() or x.dim() == 0 or x.shape[1:] != e.shape[1:] or \
                    x.shape[0] % n0 != 0:
                raise ValueError(f"calibration sequence: input {i} has shape {tuple(x.shape)}, "
                                 f"expected calls of {tuple(e.shape)} stacked along dim 0")
            steps.append(torch.split(x, n0))
        if len({len(s) for s in steps}) != 1:
            raise ValueError("calibration sequence: the inputs stack different numbers of calls")
        state = {i: torch.zeros_like(example[i]) for i in state_in}
        for call in zip(*steps):
            args = list(example)
            for i, x in zip(free, call):
                args[i] = x
            for i in state_in:
                args[i] = state[i]
            outs = prepared(*args)
            outs = outs if isinstance(outs, (tuple, list)) else (outs,)
            for i, o in state_in.items():
                state[i] = outs[o]
            calls += 1
    return calls


def _quantize(
    gm: torch.fx.GraphModule,
    example: tuple[torch.Tensor, ...],
    calibration: Iterable[Any],
    quantizer: Quantizer,
    pairs: list[tuple[int, int]],
) -> torch.fx.GraphModule:
    unshare_biases(gm)  # int32 bias scale = input scale * weight scale, per reader
    prepared = prepare_pt2e(gm, quantizer)
    _share_state_observers(prepared, pairs)
    with torch.no_grad():
        seen = _calibrate(prepared, example, calibration, pairs)
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
    state: Iterable[tuple[int | str, int]] = (),
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
      state: state kept across calls of the compiled model (streaming; docs/decisions.md
        50): (input, output) pairs, the input by index or ``forward`` argument name, the
        output by index, of one shape. After each call the runtime copies the output into
        the input; the first call (and each after ``tf_model_reset_state``) sees zeros. The
        two share one quantization observer. A calibration item giving only the other
        inputs, each with calls stacked along dim 0, is calibrated as one sequence from the
        zero state.

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
    pairs = _resolve_state(gm, example, state)
    _mark_keep_float(gm, list(keep_float))
    builder = Lowering(gm, example, name, "float").run()  # also the op-coverage check
    reference = gm
    if quantize:
        assert calibration is not None
        reference = _quantize(gm, example, calibration, quantizer or TinyforgeQuantizer(),
                              pairs)
        lowering = Lowering(reference, example, name, "qdq")
        builder = lowering.run()
        if not allow_float and lowering.float_ops:
            raise UnsupportedOpError.combine([
                UnsupportedOpError(target_name(n), source_of(n),
                                   f"would run in float32 (allow_float=False): {why}",
                                   module_path_of(n))
                for n, why in lowering.float_ops])

    for i, o in pairs:
        a, b = builder.tensors[builder.inputs[i]], builder.tensors[builder.outputs[o]]
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(f"state ({i}, {o}): input {a.dtype}{a.shape} and output "
                             f"{b.dtype}{b.shape} differ; a state pair needs one shape")
    builder.state = pairs
    producer = f"tinyforge {__version__}, torch {torch.__version__}"
    graph, blob = builder.build(producer)
    data = serialize(graph, blob)
    out_path = None
    if path is not None:
        out_path = Path(path)
        out_path.write_bytes(data)
    return ExportResult(path=out_path, graph=graph, reference=reference, kind=builder.kind, data=data)
