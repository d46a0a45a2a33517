"""GATHER (docs/decisions.md 39): PyTorch nn.Embedding fed by token ids (an int32 model input),
index_select / x[:, idx] with constant indices, and .tflite GATHER against TensorFlow's
interpreter; an index out of range at run time fails the run (no output written)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from torch import nn

import tinyforge

from e2e_util import random_inputs, run_cli

VOCAB, DIM, TOKENS = 40, 16, 6


class TokenEmbed(nn.Module):
    """Token ids [1, T] -> embedding rows [1, T, D] (-> a linear head per token)."""

    def __init__(self, head: bool) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.fc = nn.Linear(DIM, 8) if head else None

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.emb(ids)
        return h if self.fc is None else self.fc(h)


def _ids(seed: int, n: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(0, VOCAB, (1, TOKENS), generator=g) for _ in range(n)]


def _export_tokens(head: bool, tmp_path):
    torch.manual_seed(4)
    model = TokenEmbed(head).eval()
    calib = [(i,) for i in _ids(1, 8)]
    q = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / "tokens_q.tfg")
    return model, q


@pytest.mark.parametrize("head", [False, True], ids=["embedding", "embedding_linear"])
def test_token_embedding_matches_pytorch(head, cli, tmp_path):
    """int32 token ids in: the float graph equals the module, the compiled int8 program
    equals PyTorch's converted module (the gather copies int8 rows: exactly; with a linear
    head within 1 LSB of the output grid)."""
    model, q = _export_tokens(head, tmp_path)
    assert "gather" in {op["type"] for op in q.graph["ops"]}
    f = tinyforge.export(model, (_ids(1, 1)[0],), path=tmp_path / "tokens_f.tfg")
    out = tmp_path / "an547"
    run_cli(cli, "compile", q.path, "--target", "an547", "-o", out)
    for k, ids in enumerate(_ids(9, 3)):
        xp = tmp_path / f"ids{k}.npy"
        # int64 ids as PyTorch makes them (read as int32, each value checked), or int32
        np.save(xp, ids.numpy() if k == 0 else ids.numpy().astype(np.int32))
        with torch.no_grad():
            want_f, want_q = model(ids).numpy(), q.reference(ids).numpy()
        run_cli(cli, "run", f.path, "--input", xp, "--output", tmp_path / "yf.npy")
        np.testing.assert_allclose(np.load(tmp_path / "yf.npy"), want_f, rtol=1e-6, atol=1e-6)
        run_cli(cli, "run", q.path, "--input", xp, "--output", tmp_path / "yq.npy")
        got = np.load(tmp_path / "yq.npy")
        step = float(np.min(np.diff(np.unique(want_q)))) if want_q.size > 1 else 1.0
        worst = float(np.max(np.abs(got - want_q)))
        assert worst <= (1e-6 if not head else step * 1.01), (k, worst, step)
        # The compiled program (the runtime, int32 input, int8 output) too.
        run_cli(cli, "run", out / "program.bin", "-i", xp, "-o", tmp_path / "yp.npy")
        yp = np.load(tmp_path / "yp.npy")
        assert yp.dtype == np.int8 and yp.size == want_q.size


def test_token_out_of_range_fails_the_run(cli, tmp_path):
    """An id outside [0, VOCAB) (or negative): the runtime's run fails with its status, the
    host executor with one line naming the index; in range the same program runs."""
    _, q = _export_tokens(False, tmp_path)
    out = tmp_path / "an547"
    run_cli(cli, "compile", q.path, "--target", "an547", "-o", out)
    for bad in (VOCAB, -1):
        ids = np.array([[1, 2, bad, 3, 4, 5]], dtype=np.int32)
        np.save(tmp_path / "bad.npy", ids)
        proc = run_cli(cli, "run", out / "program.bin", "-i", tmp_path / "bad.npy", check=False)
        assert proc.returncode != 0 and "index input is out of range" in proc.stderr, proc.stderr
        proc = run_cli(cli, "run", q.path, "-i", tmp_path / "bad.npy", check=False)
        assert proc.returncode != 0 and f"index {bad} out of range" in proc.stderr, proc.stderr
    np.save(tmp_path / "ok.npy", np.array([[0, VOCAB - 1, 3, 3, 4, 5]], dtype=np.int32))
    run_cli(cli, "run", out / "program.bin", "-i", tmp_path / "ok.npy")


class ConstIndex(nn.Module):
    """conv -> index_select over C and x[:, :, idx] over H (constant indices)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 1)
        self.register_buffer("ci", torch.tensor([4, 0, 2, 2, 5]))
        self.register_buffer("hi", torch.tensor([3, 1]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.index_select(self.conv(x), 1, self.ci)
        return torch.relu(h[:, :, self.hi])


def test_constant_indices_match_pytorch(cli, tmp_path):
    model = ConstIndex().eval()
    shape = (1, 3, 5, 4)
    calib = [(x,) for x in random_inputs(shape, 8, seed=99)]
    q = tinyforge.export(model, calib[0], calibration=calib, path=tmp_path / "ci_q.tfg")
    assert sum(op["type"] == "gather" for op in q.graph["ops"]) == 2
    for k, x in enumerate(random_inputs(shape, 2, seed=7)):
        xp = tmp_path / f"x{k}.npy"
        np.save(xp, x.numpy())
        run_cli(cli, "run", q.path, "--input", xp, "--output", tmp_path / "y.npy")
        with torch.no_grad():
            want = q.reference(x).numpy()
        got = np.load(tmp_path / "y.npy")
        assert got.shape == want.shape
        step = float(np.min(np.diff(np.unique(want))))
        assert np.max(np.abs(got - want)) <= step * 1.01, k


# ---- .tflite GATHER ------------------------------------------------------------------------

tf = pytest.importorskip("tensorflow")


def _gathers():
    from test_tflite_shape_ops import _lambda, inp, layers  # noqa: PLC0415

    x = inp((6, 5, 4))
    h = layers.Conv2D(8, 1)(x)
    return tf.keras.Model(x, [
        _lambda(lambda t: tf.gather(t, [7, 0, 3, 3], axis=-1))(h),        # channels
        _lambda(lambda t: tf.gather(t, [[4, 1], [0, 2]], axis=1))(h),     # H, 2-D indices
    ])


def test_tflite_gather_matches_tf_interpreter(cli, tmp_path):
    import tflite_oracle as oracle  # noqa: PLC0415
    from test_tflite_shape_ops import _convert  # noqa: PLC0415

    case = oracle.write_case("gather", _gathers, ["GATHER"], _convert, tmp_path)
    rng = np.random.default_rng(3)
    for k in range(2):
        xs = case.random_inputs(rng)
        ref = oracle.tf_run(case.data, xs)
        ours = oracle.run_ours(cli, case.path, xs, len(case.outs), tmp_path)
        for j, d in enumerate(case.outs):
            want = ref.get_tensor(d["index"])
            assert np.array_equal(ours[j].reshape(want.shape), want), (k, j)


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None
                    or shutil.which("qemu-system-arm") is None,
                    reason="arm-none-eabi-gcc or qemu-system-arm missing")
def test_token_embedding_on_an547(cli, tmp_path, board_env):
    """One short board run (Cortex-M55): token ids in, the firmware's output equals the host
    runtime's."""
    from tinyforge import board as tfboard  # noqa: PLC0415

    _, q = _export_tokens(True, tmp_path)
    ids = np.concatenate([i.numpy() for i in _ids(9, 2)]).astype(np.int32)  # 2 stacked runs
    outcome = tfboard.run_model(q.path, "an547", [ids])
    assert outcome.bit_exact, outcome.mismatch


def _token_model():
    """tf.gather of a weight table by the ids, then a dense layer (Keras' own Embedding:
    _embedding_model)."""
    from test_tflite_shape_ops import layers  # noqa: PLC0415

    class Table(layers.Layer):
        def build(self, _):
            self.w = self.add_weight(shape=(VOCAB, DIM), initializer="glorot_uniform")

        def call(self, ids):
            return tf.gather(self.w, ids)

    ids = tf.keras.Input((TOKENS,), batch_size=1, dtype="int32")
    return tf.keras.Model(ids, layers.Dense(8)(Table()(ids)))


def _convert_tokens(build) -> bytes:
    import tflite_cases  # noqa: PLC0415

    return tflite_cases.convert_keras(
        build, 7, draw=lambda rng, s: rng.integers(0, VOCAB, size=s, dtype=np.int32))


def test_tflite_token_input_gather_matches_tf_interpreter(cli, tmp_path):
    """An INT32 graph input (token ids) feeding GATHER of an int8 table, then a dense layer:
    bit-exact with TF's interpreter, and an id out of range fails our run."""
    import tflite_oracle as oracle  # noqa: PLC0415

    case = oracle.write_case("tokens", _token_model, ["GATHER"], _convert_tokens, tmp_path)
    assert case.ins[0]["dtype"] == np.int32, case.ins[0]
    rng = np.random.default_rng(3)
    for k in range(2):
        xs = [rng.integers(0, VOCAB, size=case.ins[0]["shape"], dtype=np.int32)]
        ref = oracle.tf_run(case.data, xs)
        ours = oracle.run_ours(cli, case.path, xs, len(case.outs), tmp_path)
        want = ref.get_tensor(case.outs[0]["index"])
        assert np.array_equal(ours[0].reshape(want.shape), want), k
    np.save(tmp_path / "bad.npy", np.full(case.ins[0]["shape"], VOCAB, dtype=np.int32))
    proc = run_cli(cli, "run", case.path, "-i", tmp_path / "bad.npy", check=False)
    assert proc.returncode != 0 and "out of range" in proc.stderr, proc.stderr


def _embedding_model():
    """Keras' Embedding layer: it converts to SELECT(LESS(ids, 0), ids + VOCAB, ids) ->
    GATHER (a negative id counts from the end), then a dense layer."""
    from test_tflite_shape_ops import layers  # noqa: PLC0415

    ids = tf.keras.Input((TOKENS,), batch_size=1, dtype="int32")
    return tf.keras.Model(ids, layers.Dense(8)(layers.Embedding(VOCAB, DIM)(ids)))


def test_tflite_keras_embedding_wraps_negative_ids_like_tf(cli, tmp_path):
    """Keras Embedding's index wrap: ids in [-VOCAB, VOCAB) give TF's interpreter's output
    bit for bit; an id below -VOCAB fails our run."""
    import tflite_oracle as oracle  # noqa: PLC0415

    case = oracle.write_case("embedding", _embedding_model, ["LESS", "GATHER"],
                             _convert_tokens, tmp_path)
    rng = np.random.default_rng(5)
    for k in range(3):
        xs = [rng.integers(-VOCAB, VOCAB, size=case.ins[0]["shape"], dtype=np.int32)]
        if k == 0:
            xs[0].flat[:2] = [-VOCAB, VOCAB - 1]
        ref = oracle.tf_run(case.data, xs)
        ours = oracle.run_ours(cli, case.path, xs, len(case.outs), tmp_path)
        want = ref.get_tensor(case.outs[0]["index"])
        assert np.array_equal(ours[0].reshape(want.shape), want), k
    np.save(tmp_path / "bad.npy", np.full(case.ins[0]["shape"], -VOCAB - 1, dtype=np.int32))
    proc = run_cli(cli, "run", case.path, "-i", tmp_path / "bad.npy", check=False)
    assert proc.returncode != 0 and "out of range" in proc.stderr, proc.stderr
