"""Compile time stays near-linear in the graph's size (issue 19, part 3).

Chains of 100,000 graph-file ops (tinyforge.synthetic: linear -> relu -> residual add blocks)
go through the CLI: the quantized one through the whole default pipeline with the verifier
after every pass, the float one through the importer, the verifier and the passes that take
float graphs. One absolute bound each (30 s, generous: the quadratic passes took minutes at
a third of the size); --target (planner, emitter, program writer) at the largest chain the
program format holds (65,535 program tensors).
"""
from __future__ import annotations

import time

import pytest

from tinyforge.synthetic import write_chain_graph

from e2e_util import run_cli

N_OPS = 100_000
TARGET_OPS = 40_000  # about 40,000 program tensors: within the format's 65,535
BOUND_S = 30.0


def _timed(cli: str, *args: str) -> float:
    start = time.monotonic()
    run_cli(cli, *args)
    return time.monotonic() - start


@pytest.mark.parametrize("quantized", [True, False], ids=["qdq", "float"])
def test_100k_op_chain_compiles_in_under_30s(cli, tmp_path, quantized):
    graph = write_chain_graph(tmp_path / "chain.tfg", N_OPS, quantized=quantized)
    out = tmp_path / "out.tfg"
    # A float graph cannot be lowered (fold-qdq wants a quantized one): it takes the passes
    # that accept float graphs.
    passes = [] if quantized else ["--passes", "const-fold,dce"]
    took = _timed(cli, "compile", str(graph), "--verify-each", *passes, "-o", str(out))
    assert out.exists()
    assert took < BOUND_S, f"{N_OPS}-op {'qdq' if quantized else 'float'} chain: {took:.1f} s"


def test_long_chain_compiles_for_a_target_in_under_30s(cli, tmp_path):
    graph = write_chain_graph(tmp_path / "chain.tfg", TARGET_OPS, quantized=True)
    took = _timed(cli, "compile", str(graph), "--target", "cortex-m55", "-o", str(tmp_path / "out"))
    assert (tmp_path / "out" / "program.bin").stat().st_size > 0
    assert took < BOUND_S, f"{TARGET_OPS}-op chain for cortex-m55: {took:.1f} s"
