"""tinyforge's PT2E quantizer: the int8 scheme of the TFLite int8 specification.

Contract (what :class:`TinyforgeQuantizer` annotates, on a graph from
``torch.export.export(...).module()`` with BatchNorm already folded):

* activations: int8 asymmetric per-tensor, qmin -128, qmax 127, min/max observer;
* conv2d / linear weights: int8 symmetric per-channel on axis 0, qmin -127, qmax 127;
* conv2d / linear bias: int32, per-channel on axis 0, zero point 0,
  ``scale[c] = input_scale * weight_scale[c]`` (float32 product), full int32 range;
* conv2d / linear / add / sub / mul followed by relu / relu6 (hardtanh) / clamp, when the activation is
  the producer's only user: no quantize/dequantize between them, the output observer sits
  after the activation (TFLite's fused activation);
* data movement (reshape / flatten / unflatten / view / squeeze / unsqueeze, max pool,
  avg pool, adaptive avg pool, amax, constant pad, cat, embedding / index_select / index:
  the table or input int8 per tensor, the int indices not quantized): output shares the
  input's quantization parameters (cat: all inputs and the output share one set);
* softmax and sigmoid output fixed at scale 1/256, zero point -128; tanh output fixed at
  scale 1/128, zero point 0 (TFLite's fixed parameters);
* hardswish, hardsigmoid, silu, gelu, elu, leaky_relu: input and output with their own
  observers (the compiled table requantizes);
* maximum / minimum: input 2 and the output share input 1's parameters;
* argmax / argmin: the input observed, no output quantization (int32 indices);
* prelu (a slope per channel): input, slope constant and output with their own observers
  (TFLite's PRELU: two requantizations, no fused activation);
* matmul / bmm of two activations: both inputs and the output with their own observers
  (per tensor; TFLite's BATCH_MATMUL requantizes), a following relu fused as for add;
* layer_norm / rms_norm: input and output with their own observers; weight and bias stay
  float32 (folded at compile time);
* everything else that carries activations (standalone activations, add, sub, mul, mean, sum):
  inputs and output with their own observers; constant operands of add / sub / mul are
  observed like activations (int8 per-tensor).
"""

from __future__ import annotations


import torch
import torch.fx
from torch.fx import Node

from . import _quiet  # noqa: F401  (quiet torchao import)
from .aten_ops import KEEP_FLOAT_KEY, UNARY_FN_TARGETS
from torchao.quantization.pt2e import MinMaxObserver, PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec,
    FixedQParamsQuantizationSpec,
    QuantizationAnnotation,
    QuantizationSpec,
    QuantizationSpecBase,
    Quantizer,
    SharedQuantizationSpec,
)

aten = torch.ops.aten

ACT_QMIN, ACT_QMAX = -128, 127
WEIGHT_QMIN, WEIGHT_QMAX = -127, 127
BIAS_QMIN, BIAS_QMAX = -(2**31), 2**31 - 1

CONV_OPS = {aten.conv2d.default, aten.conv2d.padding}
LINEAR_OPS = {aten.linear.default}
# add / sub / mul: each input and the output with its own observer (the kernels requantize);
# a constant operand (binary_ops.canonicalize_binary made scalars tensors) is observed like
# an activation and quantized int8 per-tensor at convert.
ADD_OPS = {aten.add.Tensor, aten.add_.Tensor, aten.sub.Tensor, aten.sub_.Tensor,
           aten.mul.Tensor, aten.mul_.Tensor}
# matmul / bmm (einsum, scaled_dot_product_attention and baddbmm are rewritten to matmul
# first): like add, own observers everywhere.
MATMUL_OPS = {aten.matmul.default, aten.bmm.default}
# maximum / minimum compare raw int8 values: input 2 and the output share input 1's
# parameters (TFLite's MAXIMUM / MINIMUM; XNNPACK's quantizer shares them too).
MINMAX_OPS = {aten.maximum.default, aten.minimum.default}
PRELU_OPS = {aten.prelu.default}
# argmax / argmin: the int8 input observed, int32 indices out (no output quantization).
ARGMAX_OPS = {aten.argmax.default, aten.argmin.default}
FUSABLE_ACT_OPS = {
    aten.relu.default,
    aten.relu_.default,
    aten.relu6.default,
    aten.hardtanh.default,
    aten.hardtanh_.default,
    aten.clamp.default,
    aten.clamp_.default,
}
SHARED_OPS = {
    aten.max_pool2d.default,
    aten.avg_pool2d.default,
    aten.adaptive_avg_pool2d.default,
    aten.flatten.using_ints,
    aten.view.default,
    aten.reshape.default,
    aten.squeeze.dim,
    aten.squeeze.dims,
    aten.squeeze.default,
    aten.unsqueeze.default,
    aten.unflatten.int,
    aten.permute.default,
    aten.transpose.int,
    aten.t.default,
    aten.slice.Tensor,
    aten.narrow.default,
    aten.select.int,
    aten.amax.default,
    aten.constant_pad_nd.default,
    aten.pad.default,
    # gather (embedding: the table is args[0], observed like an activation, int8 per tensor)
    aten.embedding.default,
    aten.index_select.default,
    aten.index.Tensor,
    # resize moves and blends values: XNNPACK's quantizer shares its parameters too
    aten.upsample_nearest2d.vec,
    aten.upsample_nearest2d.default,
    aten._upsample_nearest_exact2d.vec,
    aten._upsample_nearest_exact2d.default,
    aten.upsample_bilinear2d.vec,
    aten.upsample_bilinear2d.default,
}
CAT_OPS = {aten.cat.default}
FIXED_OUTPUT = {
    aten.softmax.int: (1.0 / 256.0, -128),
    aten._softmax.default: (1.0 / 256.0, -128),
    aten.sigmoid.default: (1.0 / 256.0, -128),
    aten.sigmoid_.default: (1.0 / 256.0, -128),
    aten.tanh.default: (1.0 / 128.0, 0),
    aten.tanh_.default: (1.0 / 128.0, 0),
}
# The table-lookup activations (hardswish, silu, gelu, ...) requantize: own output observer.
# layer_norm / rms_norm: weight and bias stay float (the compiler folds them into the int32
# constants of qlayernorm).
NORM_OPS = {aten.layer_norm.default, aten.rms_norm.default}
OWN_OUTPUT_OPS = ({aten.mean.dim, aten.sum.dim_IntList} | NORM_OPS
                  | (set(UNARY_FN_TARGETS) - set(FIXED_OUTPUT)))


def act_qspec(observer: type = MinMaxObserver) -> QuantizationSpec:
    """int8 asymmetric per-tensor activation spec observed by ``observer``."""
    return QuantizationSpec(
        dtype=torch.int8,
        quant_min=ACT_QMIN,
        quant_max=ACT_QMAX,
        qscheme=torch.per_tensor_affine,
        observer_or_fake_quant_ctr=observer.with_args(),
    )


WEIGHT_QSPEC = QuantizationSpec(
    dtype=torch.int8,
    quant_min=WEIGHT_QMIN,
    quant_max=WEIGHT_QMAX,
    qscheme=torch.per_channel_symmetric,
    ch_axis=0,
    observer_or_fake_quant_ctr=PerChannelMinMaxObserver.with_args(),
)


def _bias_qparams(observers: list) -> tuple[torch.Tensor, torch.Tensor]:
    """Bias scale = input scale * weight scale per channel (float32), zero point 0."""
    act_scale, _ = observers[0].calculate_qparams()
    weight_scale, _ = observers[1].calculate_qparams()
    scale = (act_scale.to(torch.float32) * weight_scale.to(torch.float32)).reshape(-1)
    return scale, torch.zeros(scale.shape, dtype=torch.int64)


def _bias_qspec(x: Node, w: Node, op: Node) -> DerivedQuantizationSpec:
    return DerivedQuantizationSpec(
        derived_from=[(x, op), (w, op)],
        derive_qparams_fn=_bias_qparams,
        dtype=torch.int32,
        quant_min=BIAS_QMIN,
        quant_max=BIAS_QMAX,
        qscheme=torch.per_channel_symmetric,
        ch_axis=0,
    )


def _fixed_qspec(scale: float, zero_point: int) -> FixedQParamsQuantizationSpec:
    return FixedQParamsQuantizationSpec(
        dtype=torch.int8,
        scale=scale,
        zero_point=zero_point,
        quant_min=ACT_QMIN,
        quant_max=ACT_QMAX,
        qscheme=torch.per_tensor_affine,
    )


def _annotate(
    node: Node,
    inputs: dict[Node, QuantizationSpecBase | None],
    output: QuantizationSpecBase | None,
) -> None:
    node.meta["quantization_annotation"] = QuantizationAnnotation(
        input_qspec_map=inputs, output_qspec=output, _annotated=True
    )


def _is_annotated(node: Node) -> bool:
    ann = node.meta.get("quantization_annotation")
    return ann is not None and ann._annotated


def _fused_activation(node: Node) -> Node | None:
    """The relu/relu6/hardtanh/clamp that is ``node``'s only user, if any."""
    users = list(node.users)
    if len(users) == 1 and users[0].op == "call_function" and users[0].target in FUSABLE_ACT_OPS:
        return users[0]
    return None


class TinyforgeQuantizer(Quantizer):
    """Annotates a captured ATen graph with tinyforge's int8 scheme (see module docstring).

    ``act_observer`` is the observer class for activations (default: min/max).
    """

    def __init__(self, act_observer: type = MinMaxObserver) -> None:
        super().__init__()
        self.act = act_qspec(act_observer)

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        for node in model.graph.nodes:
            if node.op != "call_function" or _is_annotated(node):
                continue
            if node.meta.get(KEEP_FLOAT_KEY):
                continue  # export(..., keep_float=...): stays float between dequantize / quantize
            target = node.target
            if target in CONV_OPS or target in LINEAR_OPS:
                self._annotate_weighted(node)
            elif target in ADD_OPS or target in MATMUL_OPS:
                inputs = {a: self.act for a in node.args[:2] if isinstance(a, Node)}
                self._annotate_with_activation(node, inputs)
            elif target in FUSABLE_ACT_OPS or target in OWN_OUTPUT_OPS:
                _annotate(node, {node.args[0]: self.act}, self.act)
            elif target in SHARED_OPS:
                x = node.args[0]
                _annotate(node, {x: self.act}, SharedQuantizationSpec((x, node)))
            elif target in CAT_OPS:
                self._annotate_cat(node)
            elif target in ARGMAX_OPS:
                _annotate(node, {node.args[0]: self.act}, None)
            elif target in PRELU_OPS:
                _annotate(node, {a: self.act for a in node.args[:2] if isinstance(a, Node)},
                          self.act)
            elif target in MINMAX_OPS:
                self._annotate_minmax(node)
            elif target in FIXED_OUTPUT:
                scale, zp = FIXED_OUTPUT[target]
                _annotate(node, {node.args[0]: self.act}, _fixed_qspec(scale, zp))
        return model

    def _annotate_with_activation(
        self, node: Node, inputs: dict[Node, QuantizationSpecBase | None]
    ) -> None:
        act = _fused_activation(node)
        if act is None:
            _annotate(node, inputs, self.act)
        else:
            _annotate(node, inputs, None)
            _annotate(act, {}, self.act)

    def _annotate_weighted(self, node: Node) -> None:
        x, w = node.args[0], node.args[1]
        bias = node.args[2] if len(node.args) > 2 else node.kwargs.get("bias")
        inputs: dict[Node, QuantizationSpecBase | None] = {x: self.act, w: WEIGHT_QSPEC}
        if isinstance(bias, Node):
            inputs[bias] = _bias_qspec(x, w, node)
        self._annotate_with_activation(node, inputs)

    def _annotate_cat(self, node: Node) -> None:
        tensors = [t for t in node.args[0] if isinstance(t, Node)]
        first = tensors[0]
        shared = SharedQuantizationSpec((first, node))
        inputs: dict[Node, QuantizationSpecBase | None] = {first: self.act}
        for t in tensors[1:]:
            inputs.setdefault(t, shared)
        _annotate(node, inputs, shared)

    def _annotate_minmax(self, node: Node) -> None:
        x, y = node.args[0], node.args[1]
        shared = SharedQuantizationSpec((x, node))
        inputs: dict[Node, QuantizationSpecBase | None] = {x: self.act}
        if isinstance(y, Node) and y is not x:
            inputs[y] = shared
        _annotate(node, inputs, shared)

    def validate(self, model: torch.fx.GraphModule) -> None:
        """Nothing to check beyond what the exporter's op coverage check already did."""


