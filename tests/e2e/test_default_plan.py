"""The default plan streams where it is cheap (docs/decisions.md 71): on the MLPerf Tiny
models, on a board of each kernel class, the default compile costs at most 10 % more
instructions than whole-tensor calls (`--speed-over-ram`, the former default), never more
RAM, and is bit-exact with the host runtime. Instruction counts under QEMU -icount are
deterministic, so the bound is asserted; the figures are printed (docs/memory-planning.md
has them)."""
from __future__ import annotations

import pytest

from tinyforge import board as tfboard
from tinyforge import reference_models

from e2e_util import board_environment

BOARDS = ["an547", "an386", "an385"]  # mve, dsp, scalar kernels
MODELS = ["kws", "vww", "ic", "ad"]
# Where the default plan is known to stream (measured 2026-12-03): its RAM must drop.
SMALLER = {("vww", "an547"), ("ic", "an547"), ("vww", "an386"), ("ic", "an386"),
           ("kws", "an385"), ("vww", "an385"), ("ic", "an385")}


@pytest.fixture(scope="module", autouse=True)
def toolchain(cli):
    with board_environment(cli):
        yield


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("model", MODELS)
def test_default_plan_within_ten_percent(model, board):
    if reference_models.models_dir() is None:
        pytest.skip(f"MLPerf Tiny models missing: {reference_models.HOW_TO}")
    tflite = reference_models.path(model)
    whole = tfboard.profile(tflite, board, compile_args=["--speed-over-ram"])
    default = tfboard.profile(tflite, board)
    ratio = default["insns_per_inference"] / whole["insns_per_inference"]
    print(f"{model} {board}: {whole['insns_per_inference']:,} -> "
          f"{default['insns_per_inference']:,} instructions ({ratio:.3f}x), RAM "
          f"{whole['ram']['total']:,} -> {default['ram']['total']:,} B")
    assert ratio <= 1.10
    assert default["ram"]["arena_total"] <= whole["ram"]["arena_total"]
    if (model, board) in SMALLER:
        assert default["ram"]["arena_total"] < whole["ram"]["arena_total"]
    outcome = tfboard.run_model(tflite, board, seed=3)
    assert outcome.bit_exact


@pytest.fixture(scope="module")
def squeezenet(tmp_path_factory):
    """The breadth family with max pools in the middle (3x3 stride 2 on 47x47x32 and
    smaller), exported int8 as `make bench` does."""
    import tinyforge  # noqa: PLC0415
    from tinyforge import families  # noqa: PLC0415

    fam = families.get("squeezenet")
    calib = families.sample_inputs(fam.input_shapes, 8, seed=7)
    path = tmp_path_factory.mktemp("squeezenet") / "squeezenet.tfg"
    return tinyforge.export(fam.model, calib[0], calibration=calib, path=path,
                            name="squeezenet").path


@pytest.mark.parametrize("board", BOARDS)
def test_fast_max_pools_stream_within_ten_percent(board, squeezenet, cli, tmp_path):
    """The fast max pools' TF_KERNEL_STREAM figures (kernels/pool/pool.inc): the default
    plan streams squeezenet's first max pool, the pools together stay within 10 % of their
    whole-tensor instructions, the model's RAM drops, and the board equals the host."""
    import json  # noqa: PLC0415

    from e2e_util import run_cli  # noqa: PLC0415

    run_cli(cli, "compile", squeezenet, "--target", board, "-o", tmp_path / "out")
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    pools = [op for op in report["ops"] if op["type"] == "qmaxpool2d"]
    assert pools[0].get("in_place") == "stream-rows", pools[0]
    whole = tfboard.profile(squeezenet, board, compile_args=["--speed-over-ram"])
    default = tfboard.profile(squeezenet, board)

    def pool_insns(p):
        return sum(op["insns"] for op in p["ops"] if op["type"] == "qmaxpool2d")

    ratio = pool_insns(default) / pool_insns(whole)
    print(f"squeezenet {board}: max pools {pool_insns(whole):,} -> {pool_insns(default):,} "
          f"({ratio:.3f}x), RAM {whole['ram']['total']:,} -> {default['ram']['total']:,} B")
    assert ratio <= 1.10
    assert default["insns_per_inference"] <= 1.10 * whole["insns_per_inference"]
    assert default["ram"]["arena_total"] < whole["ram"]["arena_total"]
    assert tfboard.run_model(squeezenet, board, seed=3).bit_exact


def test_ad_default_plan_is_the_smallest(cli, tmp_path):
    """The anomaly detector (ten FULLY_CONNECTED layers) on the M55 plans its default arena
    as small as the RAM-first plan with the portable kernels: s8_fc__mve needs no scratch
    once precompute-bias has folded the input offset into the bias (kernels/fc/fc.inc). (The
    M4's and M3's FC kernels widen the input row into scratch: 1,288 and 2,564 B here.)"""
    board = "an547"
    import json  # noqa: PLC0415

    from e2e_util import run_cli  # noqa: PLC0415

    if reference_models.models_dir() is None:
        pytest.skip(f"MLPerf Tiny models missing: {reference_models.HOW_TO}")
    tflite = reference_models.path("ad")

    def arena(*args):
        out = tmp_path / "_".join(a.strip("-") for a in args)
        run_cli(cli, "compile", tflite, "--target", board, *args, "-o", out)
        return json.loads((out / "report.json").read_text())["ram_bytes"]

    assert arena() == arena("--min-ram", "--kernels", "ref") == 768
