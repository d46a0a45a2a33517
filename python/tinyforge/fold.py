"""Graph clean-up before quantization: drop no-ops, fold BatchNorm into conv2d/linear (or
run it as a per-channel affine where nothing can take it).

Both passes work on the GraphModule returned by ``torch.export.export(...).module()``
(ATen ops, parameters as ``get_attr`` nodes) and edit it in place. The user's model is never
modified: folded weights are stored under new attribute names.
"""

from __future__ import annotations

import operator

import torch
import torch.fx
from torch.fx import Node
from torch.nn.utils.fusion import fuse_conv_bn_weights, fuse_linear_bn_weights

from .errors import UnsupportedOpError
from .nodeinfo import source_of, target_name

aten = torch.ops.aten

# Ops that compute nothing at inference: their output aliases their first input.
NOOP_OPS = {
    aten.dropout.default,
    aten.dropout_.default,
    aten.feature_dropout.default,
    aten.alpha_dropout.default,
    aten.clone.default,
    aten.contiguous.default,
    aten.alias.default,
    aten.detach.default,
    aten.detach_.default,
    aten.lift_fresh_copy.default,
}

BATCH_NORM_OPS = {aten.batch_norm.default, aten._native_batch_norm_legit_no_training.default}
CONV1D_OPS = {aten.conv1d.default, aten.conv1d.padding}
CONV_TRANSPOSE_OPS = {aten.conv_transpose1d.default, aten.conv_transpose2d.input}
# conv1d / conv_transpose2d: conv_rewrite folds the BatchNorm after them before rewriting.
_CONV_OPS = {aten.conv2d.default, aten.conv2d.padding} | CONV1D_OPS | CONV_TRANSPOSE_OPS
_LINEAR_OPS = {aten.linear.default}


def _is_noop(node: Node) -> bool:
    if node.op != "call_function" or node.target not in NOOP_OPS:
        return False
    if node.target in (aten.dropout.default, aten.dropout_.default) and len(node.args) > 2:
        return not node.args[2]  # dropout(x, p, train): a no-op only when not training
    return True


def remove_noops(gm: torch.fx.GraphModule) -> None:
    """Replace dropout / clone / contiguous / alias / detach with their input tensor.

    A view downstream of the copy a contiguous / clone made may not be a view of the strided
    input any more: ``x.transpose(1, 2).contiguous().view(...)`` (ShuffleNet's channel
    shuffle), or nn.MultiheadAttention's ``proj.unflatten(...).transpose(0, -2)
    .squeeze(-2).contiguous()``, then ``proj[0]`` and a ``view`` of that (at batch > 1,
    docs/decisions.md 51). Every view reached from a removed copy, through any ops, becomes
    a reshape, which has the same values and copies where needed."""
    removed: set[Node] = set()
    for node in list(gm.graph.nodes):
        if _is_noop(node):
            removed.update(node.users)
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
    downstream: set[Node] = set()
    for node in gm.graph.nodes:  # topological order: inputs before users
        if node in removed or any(a in downstream for a in node.all_input_nodes):
            downstream.add(node)
            if node.op == "call_function" and node.target == aten.view.default:
                node.target = aten.reshape.default
    gm.recompile()


def _get_attr(gm: torch.fx.GraphModule, node: Node | None) -> torch.Tensor | None:
    if node is None:
        return None
    if not isinstance(node, Node) or node.op != "get_attr":
        raise UnsupportedOpError(
            target_name(node) if isinstance(node, Node) else repr(node),
            None,
            "BatchNorm folding needs parameters that are constants",
        )
    value = attr_value(gm, node)
    assert isinstance(value, torch.Tensor), node.target
    return value.detach()


def attr_value(gm: torch.fx.GraphModule, node: Node) -> object:
    """What a get_attr node of ``gm`` reads (a parameter, buffer or constant tensor)."""
    obj: object = gm
    for part in str(node.target).split("."):
        obj = getattr(obj, part)
    return obj


def _bn_error(bn: Node, why: str) -> UnsupportedOpError:
    return UnsupportedOpError(
        target_name(bn),
        source_of(bn),
        f"BatchNorm cannot run at inference: {why}",
    )


def new_const(gm: torch.fx.GraphModule, before: Node, stem: str, value: torch.Tensor) -> Node:
    """Register ``value`` as a fresh buffer on gm and return a get_attr node for it."""
    k = 0
    while hasattr(gm, f"{stem}_{k}"):
        k += 1
    name = f"{stem}_{k}"
    gm.register_buffer(name, value.detach().clone().contiguous())
    with gm.graph.inserting_before(before):
        node = gm.graph.get_attr(name)
    if "val" in before.meta and hasattr(before.meta["val"], "fake_mode"):
        node.meta["val"] = before.meta["val"].fake_mode.from_tensor(value, static_shapes=True)
    return node


def _foldable(bn: Node) -> bool:
    """True if the op before ``bn`` is a conv / linear whose output only ``bn`` reads."""
    producer = bn.args[0]
    return (isinstance(producer, Node) and producer.target in _CONV_OPS | _LINEAR_OPS
            and len(producer.users) == 1)


def batchnorm_problem(bn: Node) -> UnsupportedOpError | None:
    """Why this BatchNorm can be neither folded into the op before it nor run as a
    per-channel affine (a depthwise 1x1 conv), or None."""
    if bn.target == aten.batch_norm.default and bn.args[5]:
        return _bn_error(bn, "it is in training mode (call model.eval())")
    val = bn.args[0].meta.get("val") if isinstance(bn.args[0], Node) else None
    if not _foldable(bn) and not (isinstance(val, torch.Tensor) and 2 <= val.dim() <= 4):
        return _bn_error(bn, "a BatchNorm not after a conv / linear needs a 2-D, 3-D or 4-D "
                             "input")
    return None


def _replace_bn(gm: torch.fx.GraphModule, bn: Node, result: Node) -> None:
    if bn.target == aten.batch_norm.default:
        bn.replace_all_uses_with(result)
    else:  # the legit op returns a tuple; only getitem(bn, 0) may be used
        for user in list(bn.users):
            if user.target is not operator.getitem or user.args[1] != 0:
                raise _bn_error(bn, "BatchNorm statistics outputs are used")
            user.replace_all_uses_with(result)
            gm.graph.erase_node(user)
    gm.graph.erase_node(bn)


def _affine_one(gm: torch.fx.GraphModule, bn: Node, scale: torch.Tensor,
                shift: torch.Tensor) -> None:
    """A BatchNorm that does not follow a conv / linear (DenseNet's after a concat, one on
    the input): x * scale + shift per channel (dim 1) as a depthwise 1x1 conv2d, one int8
    requantization like the folded form; 2-D / 3-D inputs get trailing unit dims."""
    from .conv_rewrite import _call  # noqa: PLC0415 (conv_rewrite imports this module)

    x = bn.args[0]
    rank = x.meta["val"].dim()
    channels = scale.shape[0]
    w = new_const(gm, bn, "_tf_bn_affine_weight", scale.reshape(channels, 1, 1, 1))
    b = new_const(gm, bn, "_tf_bn_affine_bias", shift)
    x4 = x
    for _ in range(4 - rank):
        x4 = _call(gm, bn, aten.unsqueeze.default, x4, -1)
    y = _call(gm, bn, aten.conv2d.default, x4, w, b, [1, 1], [0, 0], [1, 1], channels)
    for _ in range(4 - rank):
        y = _call(gm, bn, aten.squeeze.dim, y, -1)
    _replace_bn(gm, bn, y)


def fold_one(gm: torch.fx.GraphModule, bn: Node) -> None:
    problem = batchnorm_problem(bn)
    if problem is not None:
        raise problem
    producer = bn.args[0]

    # batch_norm(x, w, b, mean, var, training, momentum, eps, cudnn)
    # _native_batch_norm_legit_no_training(x, w, b, mean, var, momentum, eps)
    eps = bn.args[7] if bn.target == aten.batch_norm.default else bn.args[6]
    bn_w, bn_b, mean, var = (_get_attr(gm, a) for a in bn.args[1:5])
    if mean is None or var is None:
        raise _bn_error(bn, "its running statistics are not constants")
    channels = mean.shape[0]
    if bn_w is None:
        bn_w = torch.ones(channels, dtype=mean.dtype)
    if bn_b is None:
        bn_b = torch.zeros(channels, dtype=mean.dtype)
    out_rank = producer.meta["val"].dim() if "val" in producer.meta else 2
    if not _foldable(bn) or (producer.target in _LINEAR_OPS and out_rank != 2):
        # (BatchNorm1d after a linear with a 3-D output normalises dim 1, not the features)
        scale = bn_w / torch.sqrt(var + eps)
        _affine_one(gm, bn, scale, bn_b - mean * scale)
        return
    weight = _get_attr(gm, producer.args[1])
    bias = _get_attr(gm, producer.args[2]) if len(producer.args) > 2 else None
    assert weight is not None

    if producer.target in _CONV_OPS:
        new_w, new_b = fuse_conv_bn_weights(weight, bias, mean, var, eps, bn_w, bn_b,
                                            transpose=producer.target in CONV_TRANSPOSE_OPS)
    else:
        new_w, new_b = fuse_linear_bn_weights(weight, bias, mean, var, eps, bn_w, bn_b)

    w_node = new_const(gm, producer, "_tf_folded_weight", new_w)
    b_node = new_const(gm, producer, "_tf_folded_bias", new_b)
    args = list(producer.args) + [None] * max(0, 3 - len(producer.args))
    args[1], args[2] = w_node, b_node
    producer.args = tuple(args)
    _replace_bn(gm, bn, producer)


def fold_batchnorm(gm: torch.fx.GraphModule) -> int:
    """Fold every BatchNorm into the conv2d/linear that feeds it, or make it a per-channel
    affine (a depthwise 1x1 conv2d) where no such op feeds it alone; return how many.

    Raises UnsupportedOpError (naming the op and its source line) for a BatchNorm in
    training mode or whose statistics are not constants.
    """
    count = 0
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target in BATCH_NORM_OPS:
            fold_one(gm, node)
            count += 1
    for node in list(gm.graph.nodes):  # old weights and BN parameters, now unused
        if node.op == "get_attr" and not node.users:
            gm.graph.erase_node(node)
    gm.recompile()
    return count


def unshare_biases(gm: torch.fx.GraphModule) -> int:
    """Give each conv2d / linear its own get_attr node for a bias it shares with another
    (a recurrent cell's weights read at every step, a module called twice). PT2E quantizes
    a bias node once, with the scale of its first reader's input; int32 bias must be
    input scale * weight scale for every reader. Returns the number of nodes added."""
    count = 0
    for node in list(gm.graph.nodes):
        if node.op != "get_attr":
            continue
        readers = [u for u in node.users if u.op == "call_function"
                   and u.target in _CONV_OPS | _LINEAR_OPS and len(u.args) > 2
                   and u.args[2] is node]
        for user in readers[1:]:
            with gm.graph.inserting_before(user):
                copy = gm.graph.get_attr(str(node.target))
            copy.meta = dict(node.meta)
            user.replace_input_with(node, copy)
            count += 1
    if count:
        gm.recompile()
    return count
