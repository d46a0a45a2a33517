"""Synthetic chain graphs of any length, for the compile-time test and `make bench`.

:func:`chain_graph` writes a graph file (docs/graph-format.md) whose ops form one long chain
of small blocks: ``linear -> relu`` then a residual ``add`` of the block's output and the
previous block's. The quantized variant (kind qdq) is what PT2E would export for it
(dequantize/quantize around every op, int8 weights behind a dequantize), so every pass of
the default pipeline has work on every block: fold-qdq lowers it, fuse-activation folds the
relu clamps, compute-multipliers adds constants per op, the planner places ~2 tensors per op.
The float variant has the same ops without the quantize/dequantize.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .graph_file import GraphBuilder, Quant, serialize

WIDTH = 8  # features per activation: small tensors, so the file and program stay small


def _act_quant() -> Quant:
    return Quant([0.05], [0], None, -128, 127)


def chain_graph(n_ops: int, quantized: bool = True, seed: int = 0) -> bytes:
    """The file image of a chain of at least ``n_ops`` ops (whole blocks; about n_ops)."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder(name=f"chain{n_ops}", kind="qdq" if quantized else "float")
    x = b.add_tensor("x", [1, WIDTH], "float32")
    b.inputs.append(x)
    w_quant = Quant([0.01], [0], None, -127, 127)
    count = 0

    def op(type_: str, name: str, inputs: list[int], out: int, attrs=None) -> int:
        nonlocal count
        b.add_op(type_, name, inputs, [out], attrs or {})
        count += 1
        return out

    def act(name: str, int8: bool) -> int:
        if int8:
            return b.add_tensor(name, [1, WIDTH], "int8", _act_quant())
        return b.add_tensor(name, [1, WIDTH], "float32")

    def dq(t: int, name: str) -> int:  # quantized only: a float view of int8 `t`
        return op("dequantize", name, [t], b.add_tensor(name, b.tensors[t].shape, "float32"))

    cur = op("quantize", "q_in", [x], act("x_q", True)) if quantized else x
    prev = cur
    k = 0
    while count < n_ops:
        p = f"b{k}"
        w_data = rng.integers(-127, 128, size=(WIDTH, WIDTH))
        if quantized:
            w = b.add_tensor(f"{p}.w", [WIDTH, WIDTH], "int8", w_quant, w_data)
            w = dq(w, f"{p}.w_f")
            a = dq(cur, f"{p}.in_f")
        else:
            w = b.add_tensor(f"{p}.w", [WIDTH, WIDTH], "float32", None, w_data * 0.01)
            a = cur
        y = op("linear", f"{p}.linear", [a, w], act(f"{p}.linear_out", False))
        r = op("relu", f"{p}.relu", [y], act(f"{p}.relu_out", False))
        if quantized:
            r = op("quantize", f"{p}.q1", [r], act(f"{p}.relu_q", True))
            lhs, rhs = dq(r, f"{p}.lhs_f"), dq(prev, f"{p}.rhs_f")
        else:
            lhs, rhs = r, prev
        s = op("add", f"{p}.add", [lhs, rhs], act(f"{p}.sum", False))
        if quantized:
            s = op("quantize", f"{p}.q2", [s], act(f"{p}.sum_q", True))
        prev, cur = r, s
        k += 1
    out = dq(cur, "y") if quantized else cur
    b.outputs.append(out)
    doc, blob = b.build("tinyforge.synthetic")
    return serialize(doc, blob)


def write_chain_graph(path: str | Path, n_ops: int, quantized: bool = True) -> Path:
    path = Path(path)
    path.write_bytes(chain_graph(n_ops, quantized))
    return path
