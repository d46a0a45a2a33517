"""The everyday network families as Keras builds converted to full-integer int8 .tflite
(tests/e2e/keras_families.py; issue #14 part 5, the .tflite half of test_families.py):

  * op by op against TensorFlow's interpreter (BUILTIN_REF) on two random inputs: every op
    output equal, except FULLY_CONNECTED rounding ties (tflite_oracle.py);
  * saved with a static batch, and four of them also with a dynamic one (the importer folds
    the SHAPE -> ... -> RESHAPE pattern for batch 1): the same comparison;
  * compiled for a board and run there: the board's outputs equal the host runtime's bit for
    bit (tinyforge.board.run_model checks every output). To keep CI time down each family
    runs on one board, the M55 (an547) and the M4 (an386) alternately; the PyTorch builds of
    the same families run on both (test_families.py) with the same kernels.
"""
from __future__ import annotations

import numpy as np
import pytest

import keras_families
import tflite_cases
import tflite_oracle as oracle
from tinyforge import board as tfboard

NAMES = list(keras_families.FAMILIES)
DYNAMIC = ["mobilenet_v2", "shufflenet_v2", "accel_cnn1d", "two_in_two_out"]
BOARD = {name: ("an547", "an386")[i % 2] for i, name in enumerate(NAMES)}


def _convert(build, batch):
    return lambda _: tflite_cases.convert_keras(lambda: build(batch), seed=7, fan_in_scaled=True)


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("keras_families")
    cache: dict = {}

    def get(name: str, batch):
        key = (name, batch)
        if key not in cache:
            build, expect = keras_families.FAMILIES[name]
            tag = f"{name}_{'dyn' if batch is None else 'b1'}"
            cache[key] = oracle.write_case(tag, build, list(expect), _convert(build, batch), out)
            ops = [oracle.op_name(cache[key].model, op)
                   for op in cache[key].model.subgraphs[0].operators]
            for op, count in expect.items():
                assert ops.count(op) >= count, f"{name}: converter wrote {ops}"
        return cache[key]

    return get


def _check(name, case, cli, tmp_path):
    total = oracle.Comparison()
    for k, r in oracle.op_by_op(cli, case.data, case.path, (11, 12), tmp_path):
        assert not r.failures, f"{name} input {k}:\n" + "\n".join(r.failures)
        total.compared += r.compared
        total.fc_ties += r.fc_ties
    assert total.compared >= len(case.model.subgraphs[0].operators)  # both inputs, most ops
    print(f"{name}: {total.compared} op outputs equal, {total.fc_ties} FC tie elements")


@pytest.mark.parametrize("name", NAMES)
def test_family_matches_tf_interpreter(name, converted, cli, tmp_path):
    _check(name, converted(name, 1), cli, tmp_path)


@pytest.mark.parametrize("name", DYNAMIC)
def test_dynamic_batch_family_matches_tf_interpreter(name, converted, cli, tmp_path):
    case = converted(name, None)
    assert case.ins[0]["shape_signature"][0] == -1  # saved with a dynamic batch
    _check(name, case, cli, tmp_path)


@pytest.mark.parametrize("name", NAMES)
def test_family_on_board_equals_host(name, converted):
    case = converted(name, 1)
    rng = np.random.default_rng(5)
    xs = case.random_inputs(rng)
    outcome = tfboard.run_model(case.path, BOARD[name], xs)
    assert outcome.bit_exact, outcome.mismatch
    # the outputs carry signal: not one constant value (random weights can collapse them)
    assert any(o.max() != o.min() for o in outcome.outputs), name
