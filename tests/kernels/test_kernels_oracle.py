"""The int8 __ref kernels, bit-exact against independent oracles.

1. TensorFlow's TFLite interpreter with its reference kernels (BUILTIN_REF): every operator
   of a suite of small seeded Keras models converted to int8 (tflite_cases.py) becomes a
   case; kernel_case_driver recomputes it from the float quantization parameters through
   compiler/quant and the __ref kernel and must reproduce TFLite's output bit for bit.
2. TensorFlow Lite Micro itself, through the MLPerf Tiny golden dumps in ../shared/golden:
   every operator of case 0 of the four models (golden_cases.py), and every public case run
   end to end through the kernels (outputs and logits).

Needs the kernel_case_driver executable (see kernel_driver.py for where it is looked up).
Run: .venv/bin/python -m pytest tests/kernels -q
"""

from __future__ import annotations

import collections

import pytest

import golden_cases
import kernel_driver
import tflite_cases
from kernel_driver import BIT_EXACT

SEEDS = [1, 2]


def _check(driver, cases, tmp_path, tag, source, fc_single_rounding=False):
    """Runs the cases; all must be bit-exact. With fc_single_rounding (TF's interpreter),
    a FULLY_CONNECTED element may differ only where single and double rounding differ."""
    status, ours = kernel_driver.run(driver, cases, tmp_path, tag, want_outputs=True)
    missing = [c["name"] for c in cases if c["name"] not in status]
    failed = []
    for c in cases:
        s = status.get(c["name"])
        if s == "OK":
            BIT_EXACT[source][c["op"]] += 1
        elif s and s.startswith("MISMATCH") and fc_single_rounding and \
                c["op"] == "FULLY_CONNECTED" and c["name"] in ours:
            n, unexplained = tflite_cases.fc_rounding_divergence(c, ours[c["name"]])
            if unexplained:
                failed.append(f"{s} ({len(unexplained)} of {n} not a rounding-mode tie)")
            else:
                BIT_EXACT[source + " *"][c["op"]] += 1
        elif s:
            failed.append(s)
    assert not missing, f"driver reported nothing for {missing}"
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("spec", tflite_cases.MODELS, ids=lambda s: s.name)
def test_tflite_reference_interpreter(spec, seed, driver, tmp_path):
    cases = tflite_cases.model_cases(spec, seed)
    counts = collections.Counter(c["op"] for c in cases)
    for op, n in spec.expect.items():
        # Guards coverage: a converter change must not silently drop the op under test.
        assert counts[op] >= n, f"{spec.name}: expected >= {n} {op} ops, got {dict(counts)}"
    _check(driver, cases, tmp_path, f"{spec.name}-{seed}", "TFLite BUILTIN_REF",
           fc_single_rounding=True)


golden = pytest.mark.skipif(not golden_cases.available(),
                            reason="../shared/golden/mlperf-tiny not present")
GOLDEN_MODELS = golden_cases.model_names() if golden_cases.available() else []


@golden
@pytest.mark.parametrize("model", GOLDEN_MODELS)
def test_tflm_golden_ops(model, driver, tmp_path):
    cases = golden_cases.model_cases(model)
    assert cases
    _check(driver, cases, tmp_path, f"golden-{model}", "TFLM golden (op)")


@golden
@pytest.mark.parametrize("model", GOLDEN_MODELS)
def test_tflm_golden_end_to_end(model, driver, tmp_path):
    def run_cases(cases, tag):
        status, outputs = kernel_driver.run(driver, cases, tmp_path, tag, want_outputs=True)
        errors = [s for s in status.values() if s.startswith("ERROR")]
        assert not errors, "\n".join(errors)
        return outputs

    results = golden_cases.run_model_chain(model, run_cases)
    bad = [r for r in results if not r["output_ok"] or r["logits_ok"] is False]
    BIT_EXACT["TFLM golden (e2e)"][f"{model} cases"] += len(results) - len(bad)
    assert results and not bad, bad
