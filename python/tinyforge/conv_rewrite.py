"""Conv1d, the 1-D pools and ConvTranspose2d as the 2-D ops the graph file has.

Runs on the captured ATen graph before the op-coverage check (export.py, step 2), so the
rest of the exporter, the quantizer and the compiler see only conv2d / pools / reshapes:

* ``adaptive_avg_pool2d`` to any output size but 1x1 becomes average pools, a nearest
  upsample, or per-cell average pools and concats (``_adaptive_pool2d``).
* ``conv1d`` / ``max_pool1d`` / ``avg_pool1d`` / ``adaptive_avg_pool1d`` on [N, C, L] become
  ``unsqueeze(2)`` -> the 2-D op on [N, C, 1, L] (weights [O, I/g, 1, K]) -> ``squeeze(2)``.
  A BatchNorm1d right after a conv1d is folded into it first. The squeezes then sink through
  the element-wise ops after them (relu, clamp, the table activations, add / sub / mul of two
  such tensors) and a mean over the length, and cancel against the next op's unsqueeze, so a
  1-D CNN stays 4-D (a 1xW image) from end to end.
* ``conv_transpose2d`` (groups 1, dilation 1; a BatchNorm after it folded first; a
  ``conv_transpose1d`` is one on [N, C, 1, L]) becomes its
  polyphase form (docs/decisions.md 31): one stride-1 conv2d whose
  ``s_h * s_w * out_c`` output channels are the stride phases (phase (ry, rx) of output
  channel co uses the taps ``w[:, co, ry::s_h, rx::s_w]``, flipped), then the phases
  interleaved (reshape, permute, reshape: one transpose after the layout pass) and the
  padding cropped (slice). Every output element is the sum of exactly the products PyTorch's
  (and TFLite's) transposed convolution adds, so the int8 accumulators are equal.
"""

from __future__ import annotations

import torch
import torch.fx
from torch.fx import Node
from torch.fx.passes.fake_tensor_prop import FakeTensorProp

from .aten_ops import UNARY_FN_TARGETS
from .fold import (BATCH_NORM_OPS, CONV1D_OPS, CONV_TRANSPOSE_OPS, batchnorm_problem, fold_one,
                   new_const)
from .lower import _bind
from .quantizer import FUSABLE_ACT_OPS

aten = torch.ops.aten

POOL1D_OPS = {aten.max_pool1d.default, aten.avg_pool1d.default, aten.adaptive_avg_pool1d.default}
# What each rewritten aten op becomes (docs/ops.md reads it).
REWRITTEN = {
    **{op: "`conv2d` on [N, C, 1, L] (+ `reshape` views)" for op in CONV1D_OPS},
    aten.max_pool1d.default: "`max_pool2d` on [N, C, 1, L]",
    aten.avg_pool1d.default: "`avg_pool2d` on [N, C, 1, L]",
    aten.adaptive_avg_pool1d.default: "as adaptive_avg_pool2d on [N, C, 1, L]",
    aten.adaptive_avg_pool2d.default: "output 1x1: `mean`; else per axis `avg_pool2d` (in % out "
                                      "== 0) / nearest `resize` (out % in == 0), other sizes "
                                      "one `avg_pool2d` per output cell, `cat`",
    aten.conv_transpose2d.input: "`conv2d` over the stride phases, `reshape`, `transpose`, "
                                 "`slice` (groups 1, dilation 1)",
    aten.conv_transpose1d.default: "as conv_transpose2d on [N, C, 1, L]",
}
_SINK_UNARY = set(FUSABLE_ACT_OPS) | set(UNARY_FN_TARGETS)
_SINK_BINARY = {aten.add.Tensor, aten.add_.Tensor, aten.sub.Tensor, aten.sub_.Tensor,
                aten.mul.Tensor, aten.mul_.Tensor}
_KEEP_META = ("stack_trace", "nn_module_stack", "source_fn_stack", "from_node")


def _attr(gm: torch.fx.GraphModule, node: object) -> torch.Tensor | None:
    if not isinstance(node, Node) or node.op != "get_attr":
        return None
    obj: object = gm
    for part in str(node.target).split("."):
        obj = getattr(obj, part)
    return obj.detach() if isinstance(obj, torch.Tensor) else None


def _val(gm: torch.fx.GraphModule, node: Node, mode: object) -> object:
    val = node.meta.get("val")
    if val is None and node.op == "get_attr":
        val = mode.from_tensor(_attr(gm, node), static_shapes=True)  # type: ignore[attr-defined]
    return val


def _call(gm: torch.fx.GraphModule, like: Node, target: object, *args: object) -> Node:
    """A new call_function node before ``like`` carrying its source information and its
    fake value (computed from its inputs' in like's fake mode)."""
    with gm.graph.inserting_before(like):
        node = gm.graph.call_function(target, tuple(args))
    for k in _KEEP_META:
        if k in like.meta:
            node.meta[k] = like.meta[k]
    val = like.meta.get("val")
    if isinstance(val, (tuple, list)):  # (values, indices) of a max: the same fake mode
        val = next((v for v in val if isinstance(v, torch.Tensor)), None)
    mode = getattr(val, "fake_mode", None)
    if mode is not None:
        vals = torch.fx.node.map_arg(node.args, lambda n: _val(gm, n, mode))
        with mode:
            node.meta["val"] = target(*vals)  # type: ignore[operator]
    return node


def _one(v: object) -> int:
    return int(v[0]) if isinstance(v, (list, tuple)) else int(v)  # type: ignore[index]


def _is_squeeze2(node: object) -> bool:
    return (isinstance(node, Node) and node.op == "call_function"
            and node.target == aten.squeeze.dim and node.args[1] == 2)


def _rank(node: Node) -> int:
    val = node.meta.get("val")
    return val.dim() if isinstance(val, torch.Tensor) else -1


def _fold_following_bn(gm: torch.fx.GraphModule, node: Node) -> None:
    users = list(node.users)
    if len(users) == 1 and users[0].target in BATCH_NORM_OPS:
        if batchnorm_problem(users[0]) is None:
            fold_one(gm, users[0])


def _conv1d(gm: torch.fx.GraphModule, node: Node) -> bool:
    a = _bind(node)
    w = _attr(gm, a["weight"])
    if w is None or _rank(a["input"]) != 3:
        return False
    w4 = new_const(gm, node, "_tf_conv1d_weight", w.unsqueeze(2))
    padding = a["padding"]
    pads = padding if isinstance(padding, str) else [0, _one(padding)]
    target = aten.conv2d.padding if isinstance(padding, str) else aten.conv2d.default
    x4 = _call(gm, node, aten.unsqueeze.default, a["input"], 2)
    y4 = _call(gm, node, target, x4, w4, a["bias"], [1, _one(a["stride"])], pads,
               [1, _one(a["dilation"])], int(a["groups"]))
    node.replace_all_uses_with(_call(gm, node, aten.squeeze.dim, y4, 2))
    gm.graph.erase_node(node)
    return True


def _conv_transpose1d(gm: torch.fx.GraphModule, node: Node) -> bool:
    """unsqueeze(2) -> conv_transpose2d on [N, C, 1, L] -> squeeze(2) (rewritten below)."""
    a = _bind(node)
    w = _attr(gm, a["weight"])
    if w is None or _rank(a["input"]) != 3:
        return False
    w4 = new_const(gm, node, "_tf_tconv1d_weight", w.unsqueeze(2))
    x4 = _call(gm, node, aten.unsqueeze.default, a["input"], 2)
    y4 = _call(gm, node, aten.conv_transpose2d.input, x4, w4, a["bias"], [1, _one(a["stride"])],
               [0, _one(a["padding"])], [0, _one(a["output_padding"])], int(a["groups"]),
               [1, _one(a["dilation"])])
    node.replace_all_uses_with(_call(gm, node, aten.squeeze.dim, y4, 2))
    gm.graph.erase_node(node)
    return True


def _pool1d(gm: torch.fx.GraphModule, node: Node) -> bool:
    a = _bind(node)
    if _rank(a["self"]) != 3:
        return False
    x4 = _call(gm, node, aten.unsqueeze.default, a["self"], 2)
    if node.target == aten.adaptive_avg_pool1d.default:
        y4 = _call(gm, node, aten.adaptive_avg_pool2d.default, x4, [1, _one(a["output_size"])])
    else:
        k = _one(a["kernel_size"])
        s = _one(a["stride"]) if list(a["stride"] or []) else k
        pad = [0, _one(a["padding"])]
        if node.target == aten.max_pool1d.default:
            y4 = _call(gm, node, aten.max_pool2d.default, x4, [1, k], [1, s], pad,
                       [1, _one(a["dilation"])], bool(a["ceil_mode"]))
        else:
            y4 = _call(gm, node, aten.avg_pool2d.default, x4, [1, k], [1, s], pad,
                       bool(a["ceil_mode"]), bool(a["count_include_pad"]))
    node.replace_all_uses_with(_call(gm, node, aten.squeeze.dim, y4, 2))
    gm.graph.erase_node(node)
    return True


def _adaptive_pool2d(gm: torch.fx.GraphModule, node: Node) -> bool:
    """adaptive_avg_pool2d to an output other than 1x1 (1x1 is the handler's mean), by
    PyTorch's bins (start floor(i * in / out), end ceil((i + 1) * in / out)): per axis the
    same size is nothing, in % out == 0 an average pool of in / out, out % in == 0 a nearest
    upsample (each bin one element); with any other axis, one average pool per output cell
    over its bin, the cells concatenated. Every piece shares the input's quantization, as
    the adaptive pool does."""
    a = _bind(node)
    x = a["self"]
    if _rank(x) != 4:
        return False
    h, w = (int(d) for d in x.meta["val"].shape[2:])
    out = list(a["output_size"])
    oh, ow = (h if out[0] is None else int(out[0])), (w if out[1] is None else int(out[1]))
    if (oh, ow) == (1, 1) or min(oh, ow) < 1:
        return False
    if all(i % o == 0 or o % i == 0 for i, o in ((h, oh), (w, ow))):
        y = x
        kh, kw = (h // oh if h % oh == 0 else 1), (w // ow if w % ow == 0 else 1)
        if (kh, kw) != (1, 1):
            y = _call(gm, node, aten.avg_pool2d.default, y, [kh, kw], [kh, kw], [0, 0])
        if (oh, ow) != (h // kh, w // kw):
            y = _call(gm, node, aten.upsample_nearest2d.vec, y, [oh, ow], None)
    else:
        def bins(n: int, o: int) -> list[tuple[int, int]]:
            return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]

        rows = []
        for hs, he in bins(h, oh):
            band = _call(gm, node, aten.slice.Tensor, x, 2, hs, he)
            cells = []
            for ws, we in bins(w, ow):
                cell = _call(gm, node, aten.slice.Tensor, band, 3, ws, we)
                if (he - hs, we - ws) != (1, 1):
                    k = [he - hs, we - ws]
                    cell = _call(gm, node, aten.avg_pool2d.default, cell, k, k, [0, 0])
                cells.append(cell)
            rows.append(_call(gm, node, aten.cat.default, cells, 3) if len(cells) > 1
                        else cells[0])
        y = _call(gm, node, aten.cat.default, rows, 2) if len(rows) > 1 else rows[0]
    node.replace_all_uses_with(y)
    gm.graph.erase_node(node)
    return True


def transpose_conv_plan(k: int, s: int, p: int, in_size: int,
                        out_size: int) -> tuple[int, int, int, int]:
    """One axis of the polyphase form: (taps per phase J, symmetric conv padding P, phase
    rows Q = in + 2P - J + 1, crop start c); output o is interleaved row c + o."""
    j = -(-k // s)
    pad = max(0, j - 1 - p // s)
    while True:
        c = p + (pad - (j - 1)) * s
        q = in_size + 2 * pad - j + 1
        if c + out_size <= q * s:
            return j, pad, q, c
        pad += 1


def phase_weights(w: torch.Tensor, stride: tuple[int, int], taps: tuple[int, int]) -> torch.Tensor:
    """PyTorch transposed-conv weights [I, O, kh, kw] as the polyphase conv's [sh*sw*O, I, Jh,
    Jw]: channel (ry * sw + rx) * O + co, tap (ty, tx) = w[:, co, (Jh-1-ty)*sh + ry,
    (Jw-1-tx)*sw + rx] (zero past the kernel)."""
    i_c, o_c, kh, kw = w.shape
    (sh, sw), (jh, jw) = stride, taps
    full = torch.zeros(i_c, o_c, jh * sh, jw * sw, dtype=w.dtype)
    full[:, :, :kh, :kw] = w
    # full[i, o, j*s + r] -> [r, o, i, j], taps reversed
    g = full.reshape(i_c, o_c, jh, sh, jw, sw).permute(3, 5, 1, 0, 2, 4).flip(4, 5)
    return g.reshape(sh * sw * o_c, i_c, jh, jw).contiguous()


def _conv_transpose(gm: torch.fx.GraphModule, node: Node) -> bool:
    a = _bind(node)
    w = _attr(gm, a["weight"])
    b = _attr(gm, a["bias"]) if a["bias"] is not None else None
    why = ("groups " + str(a["groups"]) + " (only 1)" if int(a["groups"]) != 1 else
           "dilation " + str(list(a["dilation"])) + " (only 1)"
           if [int(d) for d in a["dilation"]] != [1, 1] else
           "weights or bias not constants" if w is None or (a["bias"] is not None and b is None)
           else "" if _rank(a["input"]) == 4 else "an unbatched input")
    if why:  # left as it is: the op-coverage check names it with this
        node.meta["tinyforge_unsupported"] = "transposed convolution with " + why
        return False
    n, _, h, wd = a["input"].meta["val"].shape
    o_c, out_h, out_w = node.meta["val"].shape[1:]
    stride = (int(a["stride"][0]), int(a["stride"][-1]))
    pad = (int(a["padding"][0]), int(a["padding"][-1]))
    jh, ph, qh, ch = transpose_conv_plan(w.shape[2], stride[0], pad[0], int(h), int(out_h))
    jw, pw, qw, cw = transpose_conv_plan(w.shape[3], stride[1], pad[1], int(wd), int(out_w))
    sh, sw = stride
    wp = new_const(gm, node, "_tf_tconv_weight", phase_weights(w, stride, (jh, jw)))
    bias = None
    if b is not None:
        bias = new_const(gm, node, "_tf_tconv_bias", b.repeat(sh * sw))
    y = _call(gm, node, aten.conv2d.default, a["input"], wp, bias, [1, 1], [ph, pw], [1, 1], 1)
    users = list(node.users)
    act = users[0] if len(users) == 1 and users[0].target in FUSABLE_ACT_OPS else None
    if act is not None:  # element-wise: applied before the interleave, it fuses into the conv
        y = _call(gm, node, act.target, y, *act.args[1:])
        y.kwargs = dict(act.kwargs)
    if sh * sw > 1:
        y = _call(gm, node, aten.reshape.default, y, [int(n), sh, sw, int(o_c), qh, qw])
        y = _call(gm, node, aten.permute.default, y, [0, 3, 4, 1, 5, 2])
        y = _call(gm, node, aten.reshape.default, y, [int(n), int(o_c), qh * sh, qw * sw])
    if ch != 0 or qh * sh != out_h:
        y = _call(gm, node, aten.slice.Tensor, y, 2, ch, ch + int(out_h))
    if cw != 0 or qw * sw != out_w:
        y = _call(gm, node, aten.slice.Tensor, y, 3, cw, cw + int(out_w))
    if act is not None:
        act.replace_all_uses_with(y)
        gm.graph.erase_node(act)
    node.replace_all_uses_with(y)
    gm.graph.erase_node(node)
    return True


def _sink_squeezes(gm: torch.fx.GraphModule) -> bool:
    """One round of moving squeeze(2) after an element-wise op / into a mean / cancelling it
    against unsqueeze(2); True if anything changed."""
    changed = False
    for sq in list(gm.graph.nodes):
        if not _is_squeeze2(sq) or sq.graph is None:
            continue
        y4 = sq.args[0]
        for u in list(sq.users):
            if u.op != "call_function":
                continue
            if u.target == aten.unsqueeze.default and int(u.args[1]) in (2, -2):
                u.replace_all_uses_with(y4)
                gm.graph.erase_node(u)
                changed = True
            elif len(sq.users) == 1 and u.target in _SINK_UNARY and u.args[0] is sq:
                u.args = (y4,) + tuple(u.args[1:])
                with gm.graph.inserting_after(u):
                    new_sq = gm.graph.call_function(aten.squeeze.dim, (u, 2))
                u.replace_all_uses_with(new_sq, delete_user_cb=lambda user: user is not new_sq)
                changed = True
            elif (u.target in _SINK_BINARY and len(u.args) >= 2 and all(
                    _is_squeeze2(x) and len(x.users) == 1 for x in u.args[:2])
                  and len(u.args) == 2 and not u.kwargs):
                u.args = (u.args[0].args[0], u.args[1].args[0])
                with gm.graph.inserting_after(u):
                    new_sq = gm.graph.call_function(aten.squeeze.dim, (u, 2))
                u.replace_all_uses_with(new_sq, delete_user_cb=lambda user: user is not new_sq)
                changed = True
            elif u.target == aten.mean.dim and len(sq.users) == 1 and u.args[0] is sq:
                ua = _bind(u)
                if ua["dim"] is None or ua["dtype"] is not None:
                    continue
                dims = [int(d) % 3 for d in ua["dim"]]
                dims4 = [d if d < 2 else d + 1 for d in dims]
                keep = bool(ua["keepdim"])
                u.args = (y4, dims4 if keep else dims4 + [2], keep)
                u.kwargs = {}
                if keep:
                    with gm.graph.inserting_after(u):
                        new_sq = gm.graph.call_function(aten.squeeze.dim, (u, 2))
                    u.replace_all_uses_with(new_sq, delete_user_cb=lambda user: user is not new_sq)
                changed = True
        if not sq.users:
            gm.graph.erase_node(sq)
            changed = True
    return changed


def rewrite_convs(gm: torch.fx.GraphModule, example: tuple[torch.Tensor, ...]) -> int:
    """Rewrite every conv1d / 1-D pool / conv_transpose2d of ``gm`` in place (module
    docstring); return how many. Variants left alone (a transposed conv with groups or
    dilation, weights that are not constants) are named by the op-coverage check after."""
    count = 0
    for node in list(gm.graph.nodes):
        if node.op != "call_function":
            continue
        if node.target in CONV1D_OPS or node.target in CONV_TRANSPOSE_OPS:
            _fold_following_bn(gm, node)
        if node.target == aten.conv_transpose1d.default:
            count += _conv_transpose1d(gm, node)
    for node in list(gm.graph.nodes):
        if node.op != "call_function":
            continue
        if node.target in CONV1D_OPS:
            count += _conv1d(gm, node)
        elif node.target in POOL1D_OPS:
            count += _pool1d(gm, node)
        elif node.target == aten.conv_transpose2d.input:
            count += _conv_transpose(gm, node)
    for node in list(gm.graph.nodes):  # (after the 1-D pools: theirs are 2-D now)
        if node.op == "call_function" and node.target == aten.adaptive_avg_pool2d.default:
            count += _adaptive_pool2d(gm, node)
    if count == 0:
        return 0
    while _sink_squeezes(gm):
        pass
    for node in list(gm.graph.nodes):  # old weights and BN parameters, now unused
        if node.op == "get_attr" and not node.users:
            gm.graph.erase_node(node)
    gm.recompile()
    vals = [n.meta["val"] for n in gm.graph.nodes if isinstance(n.meta.get("val"), torch.Tensor)]
    mode = getattr(vals[0], "fake_mode", None) if vals else None
    if mode is not None:
        fake = [mode.from_tensor(e, static_shapes=True) for e in example]
        FakeTensorProp(gm, mode).propagate_dont_convert_inputs(*fake)
    else:
        FakeTensorProp(gm).propagate(*example)
    return count
