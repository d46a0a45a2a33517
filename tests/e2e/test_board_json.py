"""board.json: every shipped description matches targets/boards/board.schema.json, the
schema check rejects broken ones, and the three readers (C++ compiler/target/board.cc,
Python tinyforge.board_catalog, CMake targets/cmake/TinyforgeBoardJson.cmake) read the
same values from each file. Every board's CPU facts agree with targets/cpus.json; the
compile-only vendor boards, a user's board file and `--target CPU --memory SPEC` plan
buffers into their own regions (issue #18)."""
from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess

import pytest

from e2e_util import export_tiny, run_cli
from tinyforge import board_catalog
from tinyforge.errors import BoardError, ErrorKind

ROOT = board_catalog.boards_dir().parents[1]
BOARDS = board_catalog.names()
EMULATED = board_catalog.emulated_names()
VENDOR = ["stm32h743", "nrf5340_app", "rp2350", "alif_e7_hp", "imxrt1170"]
CPUS = json.loads((ROOT / "targets" / "cpus.json").read_text())["cpus"]


def test_there_are_boards():
    assert set(EMULATED) == {"an385", "an386", "an505", "an547"}
    assert set(BOARDS) == set(EMULATED) | set(VENDOR)


@pytest.mark.parametrize("board", BOARDS)
def test_board_cpu_facts_match_cpus_json(board):
    b = board_catalog.board(board)
    want = CPUS[b["cpu"]]
    for key in ("arch", "isa_class", "features", "compile_flags"):
        assert b[key] == want[key], f"{board}: {key} differs from targets/cpus.json"


@pytest.mark.parametrize("board", BOARDS)
def test_shipped_board_json_matches_the_schema(board):
    b = board_catalog.load(board_catalog.boards_dir() / board / "board.json")
    assert b["schema"] == board_catalog.SCHEMA_ID and b["name"] == board


def _mutations(b: dict):
    """(what, broken copy): each must be rejected."""
    def m(f):
        c = copy.deepcopy(b)
        f(c)
        return c
    yield "missing cpu", m(lambda c: c.pop("cpu"))
    yield "unknown field", m(lambda c: c.update(colour="red"))
    yield "bad isa_class", m(lambda c: c.update(isa_class="neon"))
    yield "size as text", m(lambda c: c["memory"][0].update(size="512"))
    yield "negative stack", m(lambda c: c["defaults"].update(stack_size=-1))
    yield "bad base", m(lambda c: c["memory"][0].update(base="10000000"))
    yield "bool as int", m(lambda c: c["qemu"].update(cpu_hz=True))
    yield "no memory", m(lambda c: c.update(memory=[]))
    yield "long region name", m(lambda c: c["memory"][0].update(name="a" * 16))
    yield "wrong schema", m(lambda c: c.update(schema="tinyforge.board/2"))
    yield "repeated feature", m(lambda c: c.update(features=["dsp", "dsp"]))


@pytest.mark.parametrize("what", [w for w, _ in _mutations(board_catalog.board("an547"))])
def test_schema_check_rejects_broken_descriptions(what, tmp_path):
    broken = dict(_mutations(board_catalog.board("an547")))[what]
    path = tmp_path / "an547" / "board.json"
    path.parent.mkdir()
    path.write_text(json.dumps(broken))
    with pytest.raises(BoardError) as e:
        board_catalog.load(path)
    assert e.value.kind is ErrorKind.INVALID_INPUT and e.value.exit_code == 2
    assert str(e.value).startswith(str(path) + ": ")


def test_schema_uses_only_the_checked_subset():
    # validate() refuses a schema keyword it does not implement (rather than ignore it).
    with pytest.raises(BoardError, match="not supported"):
        board_catalog.validate({}, {"type": "object", "maxProperties": 3})


# ---- the readers agree -------------------------------------------------------------------
CMAKE_SCRIPT = """
include("{root}/targets/cmake/TinyforgeBoardJson.cmake")
tf_read_board_json("{json}")
foreach(v TINYFORGE_CPU_FLAGS TF_BOARD_LINKER_SCRIPT TF_BOARD_QEMU_MACHINE TF_BOARD_CPU_HZ
          TF_BOARD_CPU TF_BOARD_ISA_CLASS TF_BOARD_REGION_LINES)
  message(STATUS "${{v}}=${{${{v}}}}")
endforeach()
"""


@pytest.mark.parametrize("board", EMULATED)  # the CMake reader serves firmware builds
def test_cmake_reader_agrees(board, tmp_path):
    cmake = shutil.which("cmake")
    assert cmake, "cmake not found"
    b = board_catalog.board(board)
    script = tmp_path / "read.cmake"
    script.write_text(CMAKE_SCRIPT.format(root=ROOT, json=board_catalog.boards_dir() / board /
                                          "board.json"))
    proc = subprocess.run([cmake, "-P", str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = dict(re.findall(r"^-- (\w+)=(.*?)(?=^-- |\Z)", proc.stdout, re.M | re.S))
    got = {k: v.rstrip("\n") for k, v in got.items()}
    assert got["TINYFORGE_CPU_FLAGS"] == " ".join(b["compile_flags"])
    assert got["TF_BOARD_LINKER_SCRIPT"] == b["linker_script"]
    assert got["TF_BOARD_QEMU_MACHINE"] == b["qemu"]["machine"]
    assert int(got["TF_BOARD_CPU_HZ"]) == b["qemu"]["cpu_hz"]
    assert got["TF_BOARD_CPU"] == b["cpu"] and got["TF_BOARD_ISA_CLASS"] == b["isa_class"]
    lines = [l.strip().rstrip("\\").strip() for l in got["TF_BOARD_REGION_LINES"].splitlines()]
    assert lines == [f"X({r['name']}, {r['base']}u, {r['size']}u, {r['speed_rank']}, "
                     f"TF_REGION_{r['purpose'].upper()})" for r in b["memory"]]


@pytest.fixture(scope="module")
def tiny_graph(tmp_path_factory):
    return export_tiny(tmp_path_factory.mktemp("board_json") / "tiny.tfg")


@pytest.mark.parametrize("board", BOARDS)
def test_cpp_reader_agrees(board, cli, tiny_graph):
    b = board_catalog.board(board)
    plan = json.loads(run_cli(cli, "compile", tiny_graph, "--target", board, "--json").stdout)
    assert plan["target"] == {"board": board, "cpu": b["cpu"], "isa": b["isa_class"]}
    ram = [r for r in b["memory"] if r["purpose"] == "ram"]
    assert [r["name"] for r in plan["regions"]] == [r["name"] for r in ram]
    for got, want in zip(plan["regions"], ram):
        assert got["speed_rank"] == want["speed_rank"]
        if want["name"] == b["layout"]["data"]:  # net of stack, .data/.bss, handlers
            reserve = b["defaults"]["stack_size"]
            assert got["capacity"] < want["size"] - reserve
        else:
            assert got["capacity"] == want["size"]
    # The CPU name resolves to the same emulated board in both readers (when exactly one
    # carries it; vendor boards are never chosen by CPU name).
    if board in EMULATED and sum(x["cpu"] == b["cpu"] for x in
                                 map(board_catalog.board, EMULATED)) == 1:
        assert board_catalog.resolve_board(b["cpu"]) == board
        by_cpu = json.loads(run_cli(cli, "compile", tiny_graph, "--target", b["cpu"],
                                    "--json").stdout)
        assert by_cpu["target"]["board"] == board


# ---- boards that are not ours ------------------------------------------------------------
def _plan(cli, graph, *args):
    return json.loads(run_cli(cli, "compile", graph, *args, "--json").stdout)


@pytest.mark.parametrize("board", VENDOR)
def test_vendor_board_is_compile_only(board):
    b = board_catalog.board(board)
    assert "qemu" not in b and "linker_script" not in b
    with pytest.raises(BoardError, match="compile-only") as e:
        board_catalog.resolve_emulated_board(board)
    assert e.value.exit_code == 2


def test_a_cpu_name_never_picks_a_vendor_board():
    # Two boards carry a Cortex-M55 (an547, alif_e7_hp), three a Cortex-M33: the name means
    # the emulated one, as before the vendor boards existed.
    assert board_catalog.resolve_board("cortex-m55") == "an547"
    assert board_catalog.resolve_board("cortex-m33") == "an505"


def test_users_board_file_places_buffers_in_its_regions(cli, tiny_graph, tmp_path):
    # A board nobody ships: a Cortex-M7 whose only RAM is two small banks at made-up
    # addresses. The plan must use exactly its regions, capacities and ranks.
    b = copy.deepcopy(board_catalog.board("stm32h743"))
    b["name"] = "my_board"
    b["memory"] = [
        {"name": "flash", "base": "0x00400000", "size": 262144, "speed_rank": 3,
         "purpose": "rom", "access": "r", "section": ".tf_const.flash"},
        {"name": "fast", "base": "0x1fff0000", "size": 12288, "speed_rank": 0,
         "purpose": "ram", "access": "rw", "section": ".tf_arena.fast"},
        {"name": "slow", "base": "0x20400000", "size": 65536, "speed_rank": 1,
         "purpose": "ram", "access": "rw", "section": ".tf_arena.slow"},
    ]
    b["layout"] = {"code": "flash", "weights": "flash", "data": "fast", "stack": "fast"}
    b["defaults"] = {"stack_size": 4096}
    path = tmp_path / "my_board" / "board.json"
    path.parent.mkdir()
    path.write_text(json.dumps(b))
    board_catalog.load(path)  # a valid description by the schema
    plan = _plan(cli, tiny_graph, "--target", str(path))
    assert plan["target"] == {"board": "my_board", "cpu": "cortex-m7", "isa": "dsp"}
    assert [(r["name"], r["speed_rank"]) for r in plan["regions"]] == [("fast", 0), ("slow", 1)]
    assert plan["regions"][0]["capacity"] < 12288 - 4096
    assert plan["regions"][1]["capacity"] == 65536
    assert sum(r["used"] for r in plan["regions"]) > 0


def test_memory_spec_builds_the_board(cli, tiny_graph):
    plan = _plan(cli, tiny_graph, "--target", "cortex-m4", "--memory",
                 "sram:64K@0x20000000:0,sram2:32K@0x20010000:1,flash:512K@0x08000000")
    assert plan["target"] == {"board": "custom", "cpu": "cortex-m4", "isa": "dsp"}
    assert [(r["name"], r["speed_rank"]) for r in plan["regions"]] == [("sram", 0), ("sram2", 1)]
    assert plan["regions"][1]["capacity"] == 32 * 1024


@pytest.mark.parametrize("spec, message", [
    ("sram:64K@0x20000000", "no flash/ROM region"),
    ("flash:1M@0x08000000", "no RAM region"),
    ("sram:64Q@0x20000000,flash:1M@0x0", "bad size"),
    ("sram:64K@0x20000000,flash:1M@0x2000f000", "overlap"),
    ("sram:64K@20000000,flash:1M@0x0", "bad address"),
    ("SRAM:64K@0x20000000,flash:1M@0x0", "region name"),
    ("sram:64K@0x20000000:fast,flash:1M@0x0", "neither a speed rank"),
    ("sram:4K@0x20000000,flash:1M@0x0", "cannot hold"),
])
def test_bad_memory_spec_is_one_line_and_exit_2(cli, tiny_graph, spec, message):
    proc = run_cli(cli, "compile", tiny_graph, "--target", "cortex-m4", "--memory", spec,
                   check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "--memory" in lines[0], proc.stderr


def test_memory_spec_needs_a_cpu(cli, tiny_graph):
    proc = run_cli(cli, "compile", tiny_graph, "--target", "an547", "--memory",
                   "sram:64K@0x20000000,flash:1M@0x0", check=False)
    assert proc.returncode == 2 and "must be a CPU" in proc.stderr
    proc = run_cli(cli, "compile", tiny_graph, "--memory", "sram:64K@0x20000000", check=False)
    assert proc.returncode == 2 and "needs --target" in proc.stderr
