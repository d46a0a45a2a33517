"""Board support on the four QEMU boards: start-up, faults, memory map, host I/O, and the
instruction-count plugin's exactness and determinism."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from targets_support import BOARDS, TARGETS, board_json, runner
from tinyforge.board import allocator_symbols

per_board = pytest.mark.parametrize("board", BOARDS)


def _regions(board: str) -> dict[str, dict]:
    return {r["name"]: r for r in board_json(board)["memory"]}


def _inside(addr: int, region: dict) -> bool:
    base = int(region["base"], 16)
    return base <= addr < base + region["size"]


# ---- board descriptions (no toolchain needed) -------------------------------------------

@per_board
def test_board_json_is_consistent(board):
    b = board_json(board)
    assert b["schema"] == "tinyforge.board/1"
    assert b["name"] == board
    assert b["isa_class"] in ("scalar", "dsp", "mve")
    assert any(f.startswith("-mcpu=") for f in b["compile_flags"])
    regions = _regions(board)
    assert len(regions) == len(b["memory"]), "region names must be unique"
    for r in b["memory"]:
        assert r["purpose"] in ("code", "ram", "rom")
        assert isinstance(r["size"], int) and r["size"] > 0
        assert isinstance(r["speed_rank"], int) and r["speed_rank"] >= 0
        prefix = ".tf_arena." if r["purpose"] == "ram" else ".tf_const."
        assert r["section"] == prefix + r["name"]
    spans = sorted((int(r["base"], 16), int(r["base"], 16) + r["size"]) for r in b["memory"])
    assert all(a[1] <= b_[0] for a, b_ in zip(spans, spans[1:])), "regions overlap"
    layout = b["layout"]
    assert regions[layout["code"]]["purpose"] == "code"
    assert regions[layout["data"]]["purpose"] == "ram"
    assert regions[layout["stack"]]["purpose"] == "ram"
    assert regions[layout["weights"]]["purpose"] in ("code", "rom")


@per_board
def test_linker_script_matches_board_json(board):
    b = board_json(board)
    script = (TARGETS / "boards" / board / b["linker_script"]).read_text()
    memory = re.search(r"MEMORY\s*\{(.*?)\}", script, re.S).group(1)
    units = {"": 1, "K": 1 << 10, "M": 1 << 20}
    found = {}
    entry = (r"(\w+)\s*\([rwx]+\)\s*:\s*ORIGIN\s*=\s*(0x[0-9A-Fa-f]+)\s*,"
             r"\s*LENGTH\s*=\s*(\d+)([KM]?)")
    for name, base, size, unit in re.findall(entry, memory):
        found[name] = (int(base, 16), int(size) * units[unit])
    expected = {r["name"]: (int(r["base"], 16), r["size"]) for r in b["memory"]}
    assert found == expected
    for alias, key in (("TF_CODE", "code"), ("TF_WEIGHTS", "weights"), ("TF_RAM", "data")):
        assert f'REGION_ALIAS("{alias}", {b["layout"][key]});' in script
    for r in b["memory"]:  # every region has its placement section
        assert f"{r['section']} " in script


# ---- firmware ---------------------------------------------------------------------------

@per_board
def test_hello(board, firmware_builds, qemu):
    fw = firmware_builds(board)
    assert fw.elf("hello").with_suffix(".elf.map").is_file(), "a map file per firmware"
    r = runner.run(fw.elf("hello"), args=["alpha", "beta"], timeout=20, plugin=None)
    assert r.exit_code == 0, r.stdout + r.stderr
    b = board_json(board)
    assert (f"hello from {board} ({b['qemu']['machine']}, {b['cpu']}, class {b['isa_class']}): "
            "ctor=1234 sum=36") in r.stdout
    assert "args: hello.elf alpha beta" in r.stdout
    features = set(b["features"])
    isa = dict(kv.split("=") for kv in re.search(r"isa: (.*)", r.stdout).group(1).split())
    assert isa["dsp"] == str(int("dsp" in features))
    assert isa["mve"] == str(int("mve" in features))
    assert isa["fpu"] == str(int("fpu" in features))

    stack = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", r.stdout.split("stack:")[1])}
    assert stack["size"] == b["defaults"]["stack_size"]
    assert 0 < stack["before"] < stack["deep"] < stack["size"]
    assert stack["deep"] >= 32 * 64  # Recurse(32) keeps 64 bytes per level live
    assert stack["rearmed"] < stack["before"]  # repainted: only the live frames remain
    assert stack["rearmed"] < stack["shallow"] < stack["deep"]


FAULTS = {
    "bus": ("BusFault", "PRECISERR"),
    "undef": ("UsageFault", "UNDEFINSTR"),
    "div0": ("UsageFault", "DIVBYZERO"),
    "stack": (None, "thread stack overflow"),  # UsageFault STKOF (v8-M), MemManage (v7-M)
}


@per_board
@pytest.mark.parametrize("kind", FAULTS)
def test_fault_is_reported_and_exits(board, kind, firmware_builds, qemu):
    fw = firmware_builds(board)
    r = runner.run(fw.elf("fault"), args=[kind], timeout=10, plugin=None)
    assert not r.timed_out
    assert r.exit_code == runner.EXIT_FAULT, r.stdout + r.stderr
    assert r.fault is not None, r.stdout
    name, detail = FAULTS[kind]
    if name:
        assert r.fault.startswith(f"tf-fault: {name} "), r.fault
    assert detail in r.fault
    if kind != "stack":  # the faulting pc lies in the code region
        pc = int(re.search(r"pc=(0x[0-9a-f]+)", r.fault).group(1), 16)
        assert _inside(pc, _regions(board)[board_json(board)["layout"]["code"]])


@per_board
def test_memory_map(board, firmware_builds, qemu):
    fw = firmware_builds(board)
    r = runner.run(fw.elf("memmap"), timeout=20, plugin=None)
    assert r.exit_code == 0, r.stdout + r.stderr
    regions = _regions(board)
    seen = set()
    for name, purpose, base, size, buf, status in re.findall(
            r"region (\w+) (\w+) base=(0x[0-9a-f]+) size=(\d+) buf=(0x[0-9a-f]+) (\w+)", r.stdout):
        region = regions[name]
        assert (purpose, int(base, 16), int(size)) == (
            region["purpose"], int(region["base"], 16), region["size"])
        assert _inside(int(buf, 16), region), f"{region['section']} buffer outside {name}"
        assert status == "ok", r.stdout
        seen.add(name)
    assert seen == set(regions)
    layout = dict(re.findall(r"(\w+)=(0x[0-9a-f]+)", r.stdout.split("layout")[1]))
    placement = board_json(board)["layout"]
    for key in ("code", "weights", "data", "stack"):
        assert _inside(int(layout[key], 16), regions[placement[key]]), key


@per_board
def test_host_file_io(board, firmware_builds, qemu, tmp_path):
    fw = firmware_builds(board)
    data = bytes((i * 37 + 11) % 256 for i in range(1000))
    (tmp_path / "in.bin").write_bytes(data)
    r = runner.run(fw.elf("host_io"), args=["in.bin", "out.bin"], cwd=tmp_path, timeout=20,
                   plugin=None)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert f"host_io: size=1000 sum={sum(data)} written=0 missing=-1 too_big=-3" in r.stdout
    assert (tmp_path / "out.bin").read_bytes() == data[::-1]


@per_board
def test_instruction_counts_exact_and_deterministic(board, firmware_builds, plugin):
    fw = firmware_builds(board)
    first = runner.run(fw.elf("perf_loop"), timeout=20, plugin=plugin, events=True)
    second = runner.run(fw.elf("perf_loop"), timeout=20, plugin=plugin, events=True)
    assert first.exit_code == 0, first.stdout + first.stderr
    assert first.perf is not None and first.perf.complete
    assert first.perf == second.perf, "two runs must count identically"

    regions = first.perf.regions
    n = 1000  # Loop(n) is 1 + 2n instructions; markers are excluded
    assert (regions[0].calls, regions[0].insns) == (1, 1 + 2 * n)
    assert (regions[1].calls, regions[1].insns) == (1, 1 + 2 * (2 * n))
    assert regions[1].insns - regions[0].insns == 2 * n  # scales with N
    assert (regions[2].calls, regions[2].insns, regions[2].min, regions[2].max) == (
        3, 3 * 1001, 1001, 1001)
    assert regions[4].insns == 201
    assert regions[3].insns == 201 + 2  # region 4's markers count inside region 3
    assert regions[5].calls == 1 and regions[5].insns > 256  # the dot product
    assert [e.insns for e in first.perf.events if e.region == 2] == [1001, 1001, 1001]
    assert 6 in first.perf.open
    assert first.perf.errors == ["region=7 kind=end-without-begin count=1"]
    assert first.perf.total_insns > sum(r.insns for r in regions.values())

    exact = runner.run(fw.elf("perf_loop"), timeout=20, plugin=plugin, mode="insn")
    assert exact.perf.mode == "insn"
    assert exact.perf.regions == regions  # both modes agree on marked regions


@per_board
def test_data_bytes_per_memory_region(board, firmware_builds, plugin):
    """memory=True: the plugin counts data bytes per board memory region while a region is
    open. Region 5 is Dot(g_a, g_b, 256): it loads each of the 512 bytes of g_a and g_b
    (.bss, in the layout.data region) at least once, and little else (the call's stack
    traffic, in the same region); instruction counts are unchanged by the counting."""
    fw = firmware_builds(board)
    plain = runner.run(fw.elf("perf_loop"), timeout=20, plugin=plugin)
    r = runner.run(fw.elf("perf_loop"), timeout=20, plugin=plugin, memory=True)
    assert r.exit_code == 0 and r.perf.complete, r.stdout + r.stderr
    assert r.perf.regions == plain.perf.regions and plain.perf.memory == {}
    data = board_json(board)["layout"]["data"]
    dot = r.perf.memory[5]
    assert set(dot) <= {m["name"] for m in board_json(board)["memory"]}  # no "other"
    assert 512 <= dot[data].read <= 512 + 64, dot
    assert sum(c.read for name, c in dot.items() if name != data) <= 64  # literal pool
    # The pure loops (regions 0..4) touch no data memory at all.
    assert not any(rid in r.perf.memory for rid in range(5))
    # With events, each call carries its own bytes read per range.
    ev = runner.run(fw.elf("perf_loop"), timeout=20, plugin=plugin, memory=True, events=True)
    assert ev.perf.memory == r.perf.memory
    calls = {e.region: e for e in ev.perf.events}
    assert calls[5].reads == {name: c.read for name, c in dot.items() if c.read}
    assert all(e.reads == {} for e in ev.perf.events if e.region == 2)


# ---- runner and build behaviour: one board is enough --------------------------------------

def test_hang_is_stopped_by_the_timeout(firmware_builds, plugin):
    fw = firmware_builds("an547")
    r = runner.run(fw.elf("fault"), args=["hang"], timeout=2, plugin=plugin)
    assert r.timed_out and r.exit_code == runner.EXIT_TIMEOUT
    assert r.seconds < 10
    assert r.perf is not None and r.perf.total_insns > 0  # QEMU stopped cleanly


def test_runner_cli_json_and_board_check(firmware_builds, plugin, qemu):
    board = "an385"
    elf = str(firmware_builds(board).elf("perf_loop"))
    cli = [sys.executable, str(TARGETS / "qemu" / "run.py")]
    p = subprocess.run(cli + ["--json", "--plugin", str(plugin), elf], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    assert result["board"] == board and result["exit_code"] == 0
    assert result["perf"]["regions"]["0"]["insns"] == 2001

    wrong = subprocess.run(cli + ["--board", "an547", elf], capture_output=True, text=True,
                           timeout=60)
    assert wrong.returncode == 2
    assert "built for an385, not an547" in wrong.stderr


@per_board
def test_no_allocator_linked(board, firmware_builds):
    """No firmware links newlib's malloc/free/_sbrk (arm-none-eabi-nm), and none has a heap;
    the kernel variant tests, which opt into newlib's stdio, are built elsewhere."""
    fw = firmware_builds(board)
    elfs = sorted((fw.dir / "tests").glob("*.elf"))
    assert {e.name for e in elfs} >= {"hello.elf", "fault.elf", "memmap.elf", "host_io.elf"}
    for elf in elfs:
        assert allocator_symbols(elf) == [], elf.name
        assert ".heap" not in elf.with_suffix(".elf.map").read_text(), elf.name


def test_malloc_fails_to_link(firmware_builds):
    """printf (newlib stdio) reaches malloc, which has no _sbrk to grow into: the link fails."""
    result = firmware_builds("an385").build_target("uses_malloc")
    assert result.returncode != 0
    assert "undefined reference to `_sbrk'" in result.stdout + result.stderr


def test_unknown_region_fails_to_link(firmware_builds):
    result = firmware_builds("an505").build_target("bad_region")
    assert result.returncode != 0
    assert "names a memory region this board does not have" in result.stdout + result.stderr


@pytest.mark.parametrize("qemu_version", ["7.2.0", "9.0.0", "9.1.0", "10.1.2"])
def test_plugin_compiles_for_each_qemu_api(qemu_version, tmp_path):
    """Only QEMU 7.2 (API 1) runs here; at least keep the API 2/3 code paths compiling."""
    if shutil.which("cc") is None:
        pytest.skip("no host C compiler")
    major, minor, micro = (int(x) for x in qemu_version.split("."))
    source = TARGETS / "qemu" / "tf_insncount.c"
    result = subprocess.run(
        ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
         "-fvisibility=hidden", f"-DTF_QEMU_VERSION={major * 10000 + minor * 100 + micro}",
         "-o", str(tmp_path / "plugin.so"), str(source)], capture_output=True, text=True,
        timeout=60)
    assert result.returncode == 0, result.stderr
