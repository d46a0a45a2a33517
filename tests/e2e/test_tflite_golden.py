"""The four MLPerf Tiny reference models (../shared/models/mlperf-tiny), imported from .tflite
and run by `tinyforge run` on the host, against TensorFlow Lite Micro's golden dumps
(../shared/golden/mlperf-tiny, reference kernels, double rounding): byte for byte.

- case 0 of each model: every tensor TFLM dumped (the output of every operator);
- every case: the final output and, for the softmax models, the logits feeding the softmax.

Models and goldens are read in place; inputs are converted from the goldens' raw .bin to
.npy in a temporary directory.
"""
from __future__ import annotations

import numpy as np
import pytest

from e2e_util import run_cli
from tflite_util import MODELS, available, inspect_json, manifest, op_outputs, read_bin, \
    run_dump

pytestmark = pytest.mark.skipif(not available(), reason="../shared MLPerf Tiny goldens missing")

MODEL_NAMES = ["kws", "vww", "ic", "ad"]


def _entry(name: str) -> dict:
    return next(m for m in manifest()["models"] if m["model"] == name)


def _cases() -> list[tuple[str, int]]:
    if not available():
        return []
    return [(m["model"], c["case"]) for m in manifest()["models"] for c in m["cases"]]


@pytest.fixture(scope="module")
def model_info(cli):
    cache = {}

    def get(name: str) -> dict:
        if name not in cache:
            cache[name] = inspect_json(cli, MODELS / _entry(name)["model_file"])
        return cache[name]
    return get


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_case0_every_tensor(name, cli, model_info, tmp_path):
    entry = _entry(name)
    model = MODELS / entry["model_file"]
    outputs = op_outputs(model_info(name))
    x = read_bin(entry["cases"][0]["input_file"], entry["input"]["shape"])
    tensors = run_dump(cli, model, x, tmp_path)
    y = tensors[model_info(name)["outputs"][0]["index"]]
    checked, mismatched = 0, []
    for t in entry["intermediates"]["tensors"]:
        if t["op_index"] < 0:
            continue
        want = read_bin(t["file"], t["shape"])
        got = tensors[outputs[t["op_index"]]]
        assert got.dtype == np.int8 and list(got.shape) == t["shape"], t["file"]
        checked += 1
        if not np.array_equal(got, want):
            diff = np.flatnonzero(got.ravel() != want.ravel())
            mismatched.append(f"op {t['op_index']} {t['op_type']}: {diff.size} of {want.size} "
                              f"differ, first at {diff[0]} ({got.ravel()[diff[0]]} vs TFLM "
                              f"{want.ravel()[diff[0]]})")
    assert not mismatched, f"{name}: first divergent tensors:\n" + "\n".join(mismatched[:5])
    assert checked == len(entry["intermediates"]["tensors"]) - 1
    np.testing.assert_array_equal(y.ravel(), read_bin(entry["cases"][0]["output_file"], -1))


@pytest.mark.parametrize("name,case", _cases())
def test_case_output_and_logits(name, case, cli, model_info, tmp_path):
    entry = _entry(name)
    c = next(c for c in entry["cases"] if c["case"] == case)
    x = read_bin(c["input_file"], entry["input"]["shape"])
    tensors = run_dump(cli, MODELS / entry["model_file"], x, tmp_path)
    y = tensors[model_info(name)["outputs"][0]["index"]]
    want = read_bin(c["output_file"], entry["output"]["shape"])
    assert np.array_equal(y.reshape(want.shape), want), \
        f"output {y.ravel().tolist()} vs TFLM {want.ravel().tolist()}"
    if c.get("logits_file"):
        producer = int(c["logits_producer_op"].split()[1])  # "op 11 FULLY_CONNECTED"
        got = tensors[op_outputs(model_info(name))[producer]]
        lw = read_bin(c["logits_file"], c["logits_shape"])
        assert np.array_equal(got.reshape(lw.shape), lw), \
            f"logits {got.ravel().tolist()} vs TFLM {lw.ravel().tolist()}"



@pytest.mark.parametrize("name", MODEL_NAMES)
def test_compiled_program_matches(name, cli, tmp_path):
    """`tinyforge compile x.tflite` runs the pass pipeline on the imported graph; the
    program it writes must still reproduce TFLM on every case."""
    entry = _entry(name)
    program = tmp_path / f"{name}.tfg"
    run_cli(cli, "compile", MODELS / entry["model_file"], "-o", program)
    for c in entry["cases"]:
        x = read_bin(c["input_file"], entry["input"]["shape"])
        np.save(tmp_path / "x.npy", x)
        run_cli(cli, "run", program, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
        want = read_bin(c["output_file"], entry["output"]["shape"])
        got = np.load(tmp_path / "y.npy")
        assert np.array_equal(got.reshape(want.shape), want), f"case {c['case']}"


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_device_runtime_matches(name, cli, tmp_path):
    """`compile --target cortex-m55` plans and emits the program; `run --runtime` executes
    it with the device runtime (host build): every case must still be TFLM's bytes."""
    entry = _entry(name)
    model = MODELS / entry["model_file"]
    out = tmp_path / "program"
    run_cli(cli, "compile", model, "--target", "cortex-m55", "-o", out)
    for f in ("program.bin", "model.h", "model.cc", "report.json"):
        assert (out / f).is_file(), f
    for c in entry["cases"]:
        np.save(tmp_path / "x.npy", read_bin(c["input_file"], entry["input"]["shape"]))
        run_cli(cli, "run", model, "--runtime", "--target", "cortex-m55",
                "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
        want = read_bin(c["output_file"], entry["output"]["shape"])
        got = np.load(tmp_path / "y.npy")
        assert np.array_equal(got.reshape(want.shape), want), f"case {c['case']}"
