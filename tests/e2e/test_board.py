"""Compiled models on the emulated Cortex-M boards: `tinyforge run --board`, `tinyforge
profile` and the driver behind them (python/tinyforge/board.py, docs/boards.md).

  * the four zoo models on the four boards (an385 Cortex-M3, an386 M4, an505 M33, an547 M55)
    give outputs bit-exact with the host runtime running the same program.bin;
  * a profile repeats exactly (QEMU -icount), and its figures add up;
  * a corrupt program and a timeout end quickly with a message and a non-zero exit; a wrong
    input size is refused with exit 2; 3 stacked samples in one boot equal 3 single runs;
  * a .tflite model (MLPerf Tiny KWS, when /work/shared has it) runs the same way;
  * the per-op dump comparison names the first op whose output differs.

Skips without arm-none-eabi-gcc or qemu-system-arm. Firmware trees are cached per board in
build/boards/<board> ($TINYFORGE_BOARD_BUILD): only the first run on a board builds the
runtime and kernels; later models recompile model.cc and relink.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from tinyforge import board as tfboard
from tinyforge import board_flash, board_run
from tinyforge import models, reference_models

from e2e_util import (board_environment, export_quantized, program_format_major,
                      random_inputs, run_cli)

BOARDS = ["an385", "an386", "an505", "an547"]
ZOO = ["ds_cnn", "mobilenet_v1_025", "resnet8", "fc_autoencoder"]


@pytest.fixture(scope="module", autouse=True)
def toolchain(cli):
    with board_environment(cli):
        yield


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """zoo name -> quantized graph file (seeded weights and calibration)."""
    out = tmp_path_factory.mktemp("zoo")
    return {name: export_quantized(*models.get(name), out / f"{name}.tfg").path for name in ZOO}


def _board_cli(cli: str, *args, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("board", BOARDS)
def test_zoo_bit_exact_with_host(graphs, board, tmp_path, cli):
    for k, name in enumerate(ZOO):
        o = tfboard.run_model(graphs[name], board, seed=k)
        assert o.bit_exact, (name, board, o.mismatch)
        assert o.samples == 1
        # Independently of the driver's own check: the host runtime on the same program.bin
        # (compiled again here: the board's tree may hold another test worker's model now).
        compiled = tfboard.compile_for_board(graphs[name], board, tmp_path / name)
        program = compiled.dir / "program.bin"
        x = tfboard.random_inputs(compiled, seed=k)[0]
        np.save(tmp_path / "x.npy", x)
        run_cli(cli, "run", program, "-i", tmp_path / "x.npy", "-o", tmp_path / "y.npy")
        host = np.load(tmp_path / "y.npy")
        assert np.array_equal(o.outputs[0], host), (name, board)
    # The firmware links no allocator (no heap): arm-none-eabi-nm on the built ELF.
    with tfboard.BoardTree(board) as tree:
        assert tfboard.allocator_symbols(tree.elf) == []
        assert board_flash.uncopied_ram_sections(tree.elf) == []



@pytest.mark.parametrize("board", ["an547", "an386"])
def test_float_io_bit_exact_with_host(graphs, board):
    """--io float: the QUANTIZE at the input runs s8_quantize__mve / __dsp on the board (a
    product and two FMAs instead of a division) and __ref on the host; the outputs (after
    s8_dequantize__mve on the M55) must be the same floats."""
    for seed in (0, 1):
        o = tfboard.run_model(graphs["ds_cnn"], board, seed=seed,
                              compile_args=["--io", "float"])
        assert o.bit_exact, (board, o.mismatch)
        assert o.outputs[0].dtype == np.float32


def test_cli_run_board_by_cpu_name(graphs, cli, tmp_path):
    x = np.random.default_rng(5).integers(-128, 128, size=(1, 49, 10, 1), dtype=np.int8)
    np.save(tmp_path / "x.npy", x)
    proc = _board_cli(cli, "run", graphs["ds_cnn"], "--board", "cortex-m4", "--input",
                      tmp_path / "x.npy", "--output", tmp_path / "y.npy", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["board"] == "an386" and summary["bit_exact"] and summary["samples"] == 1
    out = tmp_path / "host"
    run_cli(cli, "compile", graphs["ds_cnn"], "--target", "an386", "-o", out)
    run_cli(cli, "run", out / "program.bin", "-i", tmp_path / "x.npy", "-o", tmp_path / "h.npy")
    assert np.array_equal(np.load(tmp_path / "y.npy"), np.load(tmp_path / "h.npy"))


def test_tflite_model_on_board(tmp_path):
    """A .tflite model (MLPerf Tiny KWS reference) goes the same way."""
    if reference_models.models_dir() is None:
        pytest.skip(f"MLPerf Tiny models missing: {reference_models.HOW_TO}")
    tflite = reference_models.path("kws")
    o = tfboard.run_model(tflite, "an386", seed=1)
    assert o.bit_exact and o.outputs[0].dtype == np.int8


def test_stacked_samples_equal_single_runs(graphs, tmp_path):
    xs = np.random.default_rng(9).integers(-128, 128, size=(3, 49, 10, 1), dtype=np.int8)
    stacked = tfboard.run_model(graphs["ds_cnn"], "an505", [xs])
    assert stacked.bit_exact and stacked.samples == 3
    assert stacked.outputs[0].shape == (3, 12)
    for k in range(3):
        single = tfboard.run(graphs["ds_cnn"], "an505", [xs[k:k + 1]])[0]
        assert single.shape == (1, 12)
        assert np.array_equal(stacked.outputs[0][k], single[0])
    # [N, *shape] and flat N*elements stack the same way.
    prepended = tfboard.run(graphs["ds_cnn"], "an505", [xs.reshape(3, 1, 49, 10, 1)])[0]
    assert prepended.shape == (3, 1, 12)
    assert np.array_equal(prepended.reshape(3, 12), stacked.outputs[0])
    flat = tfboard.run(graphs["ds_cnn"], "an505", [xs.reshape(-1)])[0]
    assert np.array_equal(flat.reshape(3, 12), stacked.outputs[0])


def test_wrong_input_size_is_refused(graphs, cli, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((1, 49, 11, 1), np.int8))
    proc = _board_cli(cli, "run", graphs["ds_cnn"], "--board", "an547", "-i", tmp_path / "x.npy")
    assert proc.returncode == 2
    assert "does not fit the program's input 0, int8[1,49,10,1]" in proc.stderr
    np.save(tmp_path / "f.npy", np.zeros((1, 49, 10, 1), np.float32))
    proc = _board_cli(cli, "run", graphs["ds_cnn"], "--board", "an547", "-i", tmp_path / "f.npy")
    assert proc.returncode == 2 and "dtype float32" in proc.stderr
    proc = _board_cli(cli, "run", graphs["ds_cnn"], "--board", "an999")
    assert proc.returncode == 2 and "unknown board 'an999'" in proc.stderr


def test_corrupt_program_fails_fast(graphs, cli, tmp_path):
    out = tmp_path / "m"
    run_cli(cli, "compile", graphs["fc_autoencoder"], "--target", "an385", "-o", out)
    src = (out / "model.cc").read_text()
    magic = f"0x54, 0x46, 0x50, 0x47, 0x{program_format_major():02x}"  # "TFPG", major version
    assert magic in src
    (out / "model.cc").write_text(src.replace(magic, "0x54, 0x46, 0x50, 0x47, 0x09", 1))
    started = time.monotonic()
    proc = _board_cli(cli, "run", out, "--board", "an385", timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "failed validation" in proc.stderr and "init failed" in proc.stderr
    # The firmware prints the status as its value; the driver spells it out (status.def).
    assert "recompile the model (TF_E_BAD_VERSION)" in proc.stderr, proc.stderr
    assert time.monotonic() - started < 120
    # A directory compiled for another board is refused.
    proc = _board_cli(cli, "run", out, "--board", "an547")
    assert proc.returncode == 2 and "compiled for an385" in proc.stderr


def test_timeout_stops_the_firmware(graphs, tmp_path):
    # 64 stacked samples of ~90 M instructions each (~6 G) cannot finish in 0.5 s, however
    # long this process waits to be scheduled: QEMU is stopped, the run reports it. (One
    # sample and 50 ms failed once in CI: on a loaded machine QEMU finished before the
    # driver looked at the clock.)
    compiled = tfboard.compile_for_board(graphs["mobilenet_v1_025"], "an385", tmp_path / "c")
    spec = compiled.inputs[0]
    x = np.random.default_rng(0).integers(-128, 128, size=(64, *spec.shape), dtype=spec.dtype)
    started = time.monotonic()
    with pytest.raises(tfboard.BoardError, match="timed out after 0.5 s on an385"):
        tfboard.run_model(graphs["mobilenet_v1_025"], "an385", [x], timeout=0.5)
    assert time.monotonic() - started < 60


def test_profile_repeats_exactly(graphs, cli, tmp_path):
    a = tfboard.profile(graphs["ds_cnn"], "an547")
    b = tfboard.profile(graphs["ds_cnn"], "an547")
    assert [o["insns"] for o in a["ops"]] == [o["insns"] for o in b["ops"]]
    assert a["insns_per_inference"] == b["insns_per_inference"]
    assert a["stack"] == b["stack"] and a["flash"] == b["flash"]
    assert a["reads"] == b["reads"] and a["writes"] == b["writes"]
    report = tfboard.compile_for_board(graphs["ds_cnn"], "an547", tmp_path / "c").report
    assert [o["name"] for o in a["ops"]] == [o["name"] for o in report["ops"]]
    assert [o["kernel"] for o in a["ops"]] == [o["kernel"] for o in report["ops"]]
    assert all(o["insns"] > 0 for o in a["ops"])
    assert a["insns_in_ops"] == sum(o["insns"] for o in a["ops"]) <= a["insns_per_inference"]
    assert 0 < a["stack"]["high_water"] <= a["stack"]["size"]
    assert a["ram"]["arena"] == {r["name"]: r["used"] for r in report["regions"] if r["used"]}
    f = a["flash"]
    assert f["total"] == f["runtime"] + f["kernels"] + f["constants"] + f["other"]
    assert f["constants"] >= report["flash"]["total"]  # program + weights, in model.cc
    assert f["runtime"] > 0 and f["kernels"] > 0 and f["other"] > 0
    # The CLI prints the same figures (a third, identical run).
    proc = _board_cli(cli, "profile", graphs["ds_cnn"], "--target", "cortex-m55", "--json")
    assert proc.returncode == 0, proc.stderr
    c = json.loads(proc.stdout)
    assert [o["insns"] for o in c["ops"]] == [o["insns"] for o in a["ops"]]
    text = _board_cli(cli, "profile", graphs["ds_cnn"], "--board", "an547").stdout
    assert "instructions per inference" in text and "flash:" in text
    assert "data read per inference: " in text


@pytest.mark.parametrize("name", ["ds_cnn", "fc_autoencoder"])
def test_profile_reads_every_weight(graphs, name, tmp_path):
    """The plugin's data bytes per memory region (profile()["reads"]): every op reads each of
    its constants (weights, bias, requantization tables) at least once per inference, from
    the board's weights region (QSPI flash on the an547), so that region's bytes read are at
    least the sum of the ops' constant bytes. Nothing runs from an address in no region."""
    p = tfboard.profile(graphs[name], "an547")
    report = tfboard.compile_for_board(graphs[name], "an547", tmp_path / "c").report
    weights = sum(o["constant_bytes"] for o in report["ops"])
    assert weights > 0
    assert p["reads"]["qspi"] >= weights, (p["reads"], weights)
    # Op by op (the per-call counts of region 1): each op reads all of its own constants.
    for row, op in zip(p["ops"], report["ops"]):
        assert row["reads"].get("qspi", 0) >= op["constant_bytes"], (row, op)
    assert sum(row["reads"].get("qspi", 0) for row in p["ops"]) <= p["reads"]["qspi"]
    assert "other" not in p["reads"] and "other" not in p["writes"]
    # The activations live in DTCM: the ops write there, and only there.
    assert set(p["writes"]) == {"dtcm"}


def test_hot_constants_move_the_reads(graphs):
    """compile --hot-constants auto: on the an547 every constant of ds_cnn fits DTCM next to
    the activations; tf_model_init copies them there, so the inference reads nothing from
    QSPI any more: the same bytes are read (and the same instructions run), from DTCM. On
    the an505 (ISRAM 32 KiB) only the hottest fit: two segments, one copied; both boards
    stay bit-exact with the host runtime."""
    hot = ["--hot-constants", "auto"]
    before = tfboard.profile(graphs["ds_cnn"], "an547")
    after = tfboard.profile(graphs["ds_cnn"], "an547", compile_args=hot)
    assert before["reads"]["qspi"] > 0 and "qspi" not in after["reads"]
    assert sum(after["reads"].values()) == sum(before["reads"].values())
    assert after["reads"]["dtcm"] == before["reads"]["dtcm"] + before["reads"]["qspi"]
    assert after["insns_per_inference"] == before["insns_per_inference"]
    moved = after["ram"]["constants"]["dtcm"]
    assert moved > 0 and after["ram"]["total"] == before["ram"]["total"] + moved
    for board, seed in (("an547", 4), ("an505", 5)):
        o = tfboard.run_model(graphs["ds_cnn"], board, seed=seed, compile_args=hot)
        assert o.bit_exact, (board, o.mismatch)


def test_dump_comparison_names_first_differing_op(graphs, tmp_path):
    o = tfboard.run_model(graphs["resnet8"], "an386", seed=3)
    assert o.bit_exact
    with tfboard.BoardTree("an386") as tree:  # this model's firmware, not another worker's
        compiled, _, _, elf = board_run._prepare(graphs["resnet8"], "an386", tree, None, 3)
        x = tfboard.random_inputs(compiled, seed=3)
        # Equal dumps on a correct run: no differing op.
        result = board_run._locate(compiled, elf, "an386", x, tmp_path, 0, 60)
    assert result["op"] is None
    # Flip one byte of an op's output in the board's dump (the first from op 3 on that
    # defines a buffer: a pipe's output is its first op's): that op is named.
    outputs = board_run._op_outputs(compiled.report)
    k = min(i for i, bufs in outputs.items() if i >= 3 and bufs)
    regions = [r["region"] for r in board_run._program_regions(compiled)]
    b = outputs[k][0]
    path = tmp_path / "bdump" / f"{k:03d}_{regions.index(b['region'])}.bin"
    data = bytearray(path.read_bytes())
    data[b["offset"]] ^= 0x01
    path.write_bytes(bytes(data))
    found = tfboard.first_difference(compiled, tmp_path / "bdump", tmp_path / "hdump")
    assert found["op"] == k and found["name"] == compiled.report["ops"][k]["name"]
    assert found["bytes_differing"] == 1


def test_lenet_flatten_into_linear_on_board(tmp_path):
    """conv -> flatten (NCHW order) -> linear compiles for a board and runs there as on the
    host (the layout pass permutes the linear's weight columns; test_data_movement.py
    compares the host program with PyTorch)."""
    from test_data_movement import LeNet
    res = export_quantized(LeNet(), (1, 1, 28, 28), tmp_path / "lenet.tfg")
    o = tfboard.run_model(res.path, "an547", seed=3)
    assert o.bit_exact, o.mismatch


@pytest.mark.parametrize("board", ["an547", "an386"])
def test_shuffle_unit_on_board(board, tmp_path):
    """The transpose and slice kernels (MVE on the an547, scalar on the an386) == host."""
    from test_data_movement import ShuffleUnit, export_quantized
    res = export_quantized(ShuffleUnit(), (1, 3, 8, 8), tmp_path / "shuffle_unit.tfg")
    o = tfboard.run_model(res.path, board, seed=4)
    assert o.bit_exact, o.mismatch


def test_unlinked_kernel_paths_fall_back_to_the_same_result(graphs, tmp_path):
    """A variant's fast paths are linked only through model.cc's TF_KERNEL_PATH_LINK lines
    (docs/decisions.md 45). The same program with those lines removed links none of the
    path symbols; its dispatchers take the slower paths or __ref: outputs bit-exact with the
    host, more instructions, less flash. (Whole-tensor calls: an in-place depthwise needs
    its plane path, below.)"""
    board = "an547"
    full = tfboard.compile_for_board(graphs["ds_cnn"], board, tmp_path / "full",
                                     ["--speed-over-ram"])
    text = (full.dir / "model.cc").read_text()
    line = re.compile(r"^TF_KERNEL_PATH_LINK\((\w+), (\w+)\)\n", re.M)
    paths = [symbol for _, symbol in line.findall(text)]
    assert paths, "the DS-CNN takes conv/dwconv __mve paths on the M55"
    # Single rounding: the plane path of that rounding only (docs/decisions.md 74).
    assert "s8_dwconv__mve__plane_single" in paths and "s8_dwconv__mve__plane" not in paths, paths
    bare = tmp_path / "bare"
    shutil.copytree(full.dir, bare)
    (bare / "model.cc").write_text(line.sub("", text))
    x = tfboard.random_inputs(full, seed=4)
    o = tfboard.run_model(bare, board, x)
    assert o.bit_exact, o.mismatch
    # The board tree is shared with other test workers: build the bare program again and
    # read its ELF under one hold of the tree's lock.
    with tfboard.BoardTree(board) as tree:
        elf = tree.build(tfboard.compile_for_board(bare, board, tree.model_dir))
        nm = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True,
                            text=True, check=True).stdout
    linked = {ln.split()[-1] for ln in nm.splitlines() if ln.strip()}
    assert not linked & set(paths), sorted(linked & set(paths))
    slow, fast = tfboard.profile(bare, board, x), tfboard.profile(full.dir, board, x)
    assert slow["insns_per_inference"] > fast["insns_per_inference"]
    assert slow["flash"]["kernels"] < fast["flash"]["kernels"], (slow["flash"], fast["flash"])
    # The default plan runs the depthwise convs exactly in place, which only their plane
    # path may (kernels/dwconv/dwconv.h, decision 86): without it the program is refused at
    # init, naming the op, rather than run through a path that would read what it wrote.
    default = tfboard.compile_for_board(graphs["ds_cnn"], board, tmp_path / "default")
    ops = json.loads((default.dir / "report.json").read_text())["ops"]
    assert any(op.get("in_place") == "alias" for op in ops if op["type"] == "qdwconv2d"), ops
    bare_default = tmp_path / "bare_default"
    shutil.copytree(default.dir, bare_default)
    (bare_default / "model.cc").write_text(line.sub("", (default.dir / "model.cc").read_text()))
    with pytest.raises(tfboard.BoardError, match=r"op 1 .*overlap where the kernel forbids it"):
        tfboard.run_model(bare_default, board, x)


def test_streamed_op_executor_linked_on_demand(graphs, tmp_path):
    """The streamed-op executor is linked only through model.cc's TF_STREAM_LINK line, which
    the compiler writes for a program with a streamed op (docs/decisions.md 80): a
    whole-tensor program's firmware lacks it; a streamed program runs bit-exact with it and,
    with the line removed, is refused at init (status 13), not run into address 0."""
    board = "an547"
    symbol = "tf_rt_run_streamed_units"
    # (ResNet-8: the DS-CNN's convs all run exactly in place now, decision 87.)
    whole = tfboard.compile_for_board(graphs["resnet8"], board, tmp_path / "whole",
                                      ["--speed-over-ram"])
    streamed = tfboard.compile_for_board(graphs["resnet8"], board, tmp_path / "streamed",
                                         ["--min-ram"])
    def n_streamed(c):
        return json.loads((c.dir / "report.json").read_text())["in_place_ops"]["streamed"]
    assert n_streamed(whole) == 0 and n_streamed(streamed) > 0
    assert "TF_STREAM_LINK()" not in (whole.dir / "model.cc").read_text()
    text = (streamed.dir / "model.cc").read_text()
    assert "TF_STREAM_LINK()\n" in text
    x = tfboard.random_inputs(streamed, seed=5)
    o = tfboard.run_model(streamed.dir, board, x)
    assert o.bit_exact, o.mismatch
    with tfboard.BoardTree(board) as tree:
        elf = tree.build(tfboard.compile_for_board(whole.dir, board, tree.model_dir))
        nm = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True,
                            text=True, check=True).stdout
    assert symbol not in {ln.split()[-1] for ln in nm.splitlines() if ln.strip()}
    bare = tmp_path / "bare"
    shutil.copytree(streamed.dir, bare)
    (bare / "model.cc").write_text(text.replace("TF_STREAM_LINK()\n", ""))
    with pytest.raises(tfboard.BoardError, match="kernel missing from the kernel table"):
        tfboard.run_model(bare, board, x)


def test_optimize_size_same_outputs_less_code(graphs, tmp_path, cli):
    """`compile --optimize size` (docs/decisions.md 59): the DS-CNN's light ops (pool, FC)
    take __ref, the convs the small 2 x 2-block driver instead of the full one;
    the outputs equal the default build's bit for bit, on the host and on the an547, and the
    firmware's runtime + kernels are smaller."""
    board = "an547"
    speed = tfboard.compile_for_board(graphs["ds_cnn"], board, tmp_path / "speed")
    size = tfboard.compile_for_board(graphs["ds_cnn"], board, tmp_path / "size",
                                     ["--optimize", "size"])
    rs = json.loads((speed.dir / "report.json").read_text())
    rz = json.loads((size.dir / "report.json").read_text())
    kernels = {op["kernel"] for op in rz["ops"]}
    assert {"s8_avgpool__ref", "s8_fc__ref"} <= kernels, kernels
    assert {"s8_conv__mve", "s8_dwconv__mve"} <= kernels, kernels
    assert "s8_conv__mve__singleneg" in rs["kernel_paths"], rs["kernel_paths"]
    assert "s8_conv__mve__singleneg_small" not in rs["kernel_paths"], rs["kernel_paths"]
    assert "s8_conv__mve__singleneg" not in rz["kernel_paths"], rz["kernel_paths"]
    assert "s8_conv__mve__singleneg_small" in rz["kernel_paths"], rz["kernel_paths"]
    x = tfboard.random_inputs(speed, seed=3)
    np.save(tmp_path / "x.npy", x[0])
    host = []
    for c in (speed, size):
        run_cli(cli, "run", c.dir / "program.bin", "-i", tmp_path / "x.npy", "-o",
                tmp_path / "y.npy")
        host.append(np.load(tmp_path / "y.npy"))
    assert np.array_equal(host[0], host[1])
    fast, small = tfboard.profile(speed.dir, board, x), tfboard.profile(size.dir, board, x)
    o = tfboard.run_model(size.dir, board, x)
    assert o.bit_exact, o.mismatch
    assert np.array_equal(o.outputs[0], host[0])
    code = [p["flash"]["runtime"] + p["flash"]["kernels"] for p in (fast, small)]
    assert code[1] < code[0], code
