"""Mixed int8 / float32 programs (docs/decisions.md 47, docs/numerics.md "Float ops"): ops with
no int8 lowering (cumsum, atan2, erf) stay float32 between dequantize and quantize and run on
the float kernels (kernels/f32); the rest is int8. Host figures against PyTorch; the board
runs are in test_float_fallback_board.py."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import tinyforge
from tinyforge.errors import UnsupportedOpError

from e2e_util import run_cli
from float_fallback_model import SHAPE, export_mixed


def _inputs(n: int, seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(SHAPE, generator=g) for _ in range(n)]


def test_mixed_program_matches_pytorch(cli, tmp_path):
    """The float ops are written as float ops (unary / binary / cumsum), the compiled program
    keeps them float32 between dequantize and quantize, and its host run is within 2 output
    steps of PyTorch's converted int8 model (the int8 ops: TFLite's arithmetic vs PyTorch's,
    1 LSB each; the float ops: within 1e-6 relative, docs/numerics.md)."""
    model, q = export_mixed(tmp_path / "mixed.tfg")
    types = [op["type"] for op in q.graph["ops"]]
    fns = sorted(op["attrs"].get("fn", op["type"]) for op in q.graph["ops"]
                 if op["type"] in ("unary", "binary", "cumsum"))
    assert fns == ["atan2", "cumsum", "erf"], fns
    assert "conv2d" in types and "linear" in types
    text = run_cli(cli, "compile", q.path, "--print-after=dce").stdout
    assert "= qconv2d(" in text and "= qfc(" in text and "= cumsum(" in text, text
    # erf reads a dequantize and feeds a quantize: one table (decision 101), not float
    assert "= binary(" in text and "= unary(" not in text and "= qlut(" in text, text
    for k, x in enumerate(_inputs(3, 21)):
        xp = tmp_path / f"x{k}.npy"
        np.save(xp, x.numpy())
        run_cli(cli, "run", q.path, "--input", xp, "--output", tmp_path / "y.npy")
        got = np.load(tmp_path / "y.npy")
        with torch.no_grad():
            want = q.reference(x).numpy()
        step = float(np.min(np.diff(np.unique(want))))
        assert float(np.max(np.abs(got - want))) <= 2 * step * 1.01, (k, got, want, step)


def test_float_graph_float_ops_match_pytorch(cli, tmp_path):
    """The float graph runs the float ops on the same kernels: within 1e-5 of PyTorch's float
    execution (the kernels' erf / atan2 / cumsum, docs/numerics.md)."""
    torch.manual_seed(11)
    from float_fallback_model import Mixed  # noqa: PLC0415

    model = Mixed().eval()
    x = _inputs(1, 3)[0]
    f = tinyforge.export(model, x, path=tmp_path / "mixed_f.tfg")
    np.save(tmp_path / "x.npy", x.numpy())
    run_cli(cli, "run", f.path, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
    with torch.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), want, rtol=1e-5, atol=1e-5)


def test_no_float_lists_every_float_op(cli, tmp_path):
    """--no-float: exit 2 and one error naming each float op and why; export(...,
    allow_float=False) the same from Python with the module paths."""
    _, q = export_mixed(tmp_path / "mixed.tfg")
    proc = run_cli(cli, "compile", q.path, "--no-float", check=False)
    assert proc.returncode == 2, proc.stderr
    # erf between a dequantize and a quantize is a table (decision 101): not listed
    assert "2 op(s) would run in float32" in proc.stderr, proc.stderr
    for why in ("cumsum has no int8 lowering", "atan2 has no int8 lowering"):
        assert why in proc.stderr, proc.stderr
    assert "erf" not in proc.stderr, proc.stderr
    assert "float_fallback_model.py:" in proc.stderr, proc.stderr  # the source lines
    with pytest.raises(UnsupportedOpError) as e:
        export_mixed(tmp_path / "strict.tfg", allow_float=False)
    assert len(e.value.errors) == 2 and "erf" not in str(e.value), str(e.value)


def test_inspect_and_compile_list_float_ops(cli, tmp_path):
    _, q = export_mixed(tmp_path / "mixed.tfg")
    text = run_cli(cli, "inspect", q.path).stdout
    assert "float: 3 of" in text and "(cumsum)" in text and "(atan2)" in text, text
    rep = json.loads(run_cli(cli, "inspect", q.path, "--json").stdout)
    assert len(rep["float_ops"]["ops"]) == 3 and 0 < rep["float_ops"]["percent"] < 100
    proc = run_cli(cli, "compile", q.path, "--target", "an547", "-o", tmp_path / "out")
    assert "float: 2 of" in proc.stderr, proc.stderr  # erf: a table (decision 101)


def test_keep_float(cli, tmp_path):
    """keep_float keeps ops with an int8 lowering in float32: by module path (the gate's
    muls and add) or by ATen op name (every add); an entry matching nothing is an error."""
    _, q = export_mixed(tmp_path / "k.tfg", keep_float=["gate"])
    kept = [op["attrs"]["fn"] for op in q.graph["ops"] if op["type"] == "binary"]
    assert sorted(kept) == ["add", "atan2", "mul", "mul", "mul"], kept
    np.save(tmp_path / "x.npy", _inputs(1, 4)[0].numpy())
    run_cli(cli, "run", q.path, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
    # by ATen op name: both adds (`y + 1.0` before atan2 and the gate's `1.0 + erf`)
    _, q = export_mixed(tmp_path / "a.tfg", keep_float=["add"])
    kept = [op["attrs"]["fn"] for op in q.graph["ops"] if op["type"] == "binary"]
    assert sorted(kept) == ["add", "add", "atan2"], kept
    with pytest.raises(ValueError, match="matches no module path or op"):
        export_mixed(tmp_path / "bad.tfg", keep_float=["no_such_module"])
