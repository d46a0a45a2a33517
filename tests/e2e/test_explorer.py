"""`tinyforge explore` (issue #18, Model Explorer adapter): the server started with the
tinyforge extensions on a free local port, pages loaded in headless Chromium over the
DevTools protocol (devtools.py; every host but 127.0.0.1 resolves to nothing).

Checked against independent readers: the page's op node count is the model's op count + 2
(GraphInputs, GraphOutputs); its node data table has one row per op, in program order, with
the op's type as label and the overlay values of report.json (MACs, activation + constant
bytes) and of the profile JSON (instructions). The overlays are keyed by op name (the node
id), so a row with its value proves the node shown is that op. A graph file (.tflite) opened
through the adapter has `inspect --json`'s op count. No console message but the failed loads
of Model Explorer's web font (its page links fonts.gstatic.com; offline they fail, nothing
else is requested off the machine). A screenshot is written."""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

from devtools import Browser
from e2e_util import export_tiny, reference_model, run_cli

me = pytest.importorskip("model_explorer", reason="Model Explorer not installed "
                         "(scripts/install-deps.sh installs ai-edge-model-explorer)")
from tinyforge.explorer import graph as tfg  # noqa: E402  (needs model_explorer)
from tinyforge.explorer import model as tfm  # noqa: E402

BOARD = "an547"
ROOT = Path(__file__).resolve().parents[2]
FONT_HOST = "fonts.gstatic.com"  # Model Explorer's page links its web font there


@pytest.fixture(scope="module")
def kws() -> Path:
    return reference_model("kws")


@pytest.fixture(scope="module")
def compiled(cli, kws, tmp_path_factory) -> tuple[Path, dict, Path]:
    """kws compiled for an547, its report.json and a profile JSON of it (made-up counts:
    the page shows what it is given)."""
    out = tmp_path_factory.mktemp("kws") / BOARD
    run_cli(cli, "compile", kws, "--target", BOARD, "-o", out)
    report = json.loads((out / "report.json").read_text())
    ops = [{"index": o["index"], "name": o["name"], "type": o["type"], "kernel": o["kernel"],
            "macs": o["macs"], "insns": 1000 + 37 * k} for k, o in enumerate(report["ops"])]
    prof = out.parent / "profile.json"
    prof.write_text(json.dumps({"schema": "tinyforge.profile/1", "board": BOARD,
                                "cpu": "cortex-m55", "model": "kws",
                                "model_name": report["model"], "ops": ops}))
    return out, report, prof


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(cli, compiled):
    """`tinyforge explore DIR --profile P --no-browser` on a free port; yields the URL it
    prints (the model and its overlays in the `data` parameter). Stopped with SIGTERM."""
    out, _, prof = compiled
    proc = subprocess.Popen(
        [cli, "explore", out, "--profile", prof, "--host", "127.0.0.1", "--port",
         str(_free_port()), "--no-browser"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    end = time.monotonic() + 120
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("http://127.0.0.1:"):
                break
            if time.monotonic() > end:
                break
        url = lines[-1].strip() if lines else ""
        assert url.startswith("http://"), "".join(lines)
        assert lines[0].startswith(f"explore: {out / 'program.bin'} (12 ops, an547, profiled)"), \
            lines[0]
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _page_problems(browser: Browser) -> list[str]:
    """Console messages and off-machine requests, but Model Explorer's web font (offline)
    and the GL driver's performance notes of Chromium's software WebGL (no GPU here)."""
    bad = []
    for msg in browser.console:
        if msg.startswith("log.error: Failed to load resource") and FONT_HOST in msg:
            continue
        if re.match(r"log\.warning: \[\.WebGL-\w+\]GL Driver Message", msg):
            continue
        bad.append(msg)
    bad += [f"request: {u}" for u in browser.requests
            if not re.match(r"(http://127\.0\.0\.1:\d+/|data:|blob:)", u) and
            urllib.parse.urlparse(u).hostname != FONT_HOST]
    return bad


TABLES = """[...document.querySelectorAll('%s')].map(t => [...t.rows].map(
    r => [...r.cells].map(c => c.innerText.trim())))"""


def test_program_with_profile_in_the_browser(compiled, server, tmp_path):
    out, report, prof = compiled
    profile = json.loads(prof.read_text())
    with Browser(tmp_path) as b:
        page = b.open(server)
        # The node data table: a header, then one row per op node with a value.
        page.wait_for(f"document.querySelectorAll('table.results tr').length == "
                      f"{len(report['ops']) + 1}", 90, "node data table of every op")
        info = page.evaluate(TABLES % "table.info-attrs")[0]
        assert ["op node count", str(len(report["ops"]) + 2)] in info, info
        header, *rows = page.evaluate(TABLES % "table.results")[0]
        # Header cells: "1\nMACs\nvisibility_off" (number, name, the eye icon's name).
        assert [h.split("\n")[1] for h in header[2:]] == ["MACs", "bytes", "instructions"], \
            header
        want = [[str(k), o["type"], str(o["macs"]), str(o["activation_bytes"] +
                 o["constant_bytes"]), str(p["insns"])]
                for k, (o, p) in enumerate(zip(report["ops"], profile["ops"]))]
        assert rows == want
        page.wait_for("!!document.querySelector('canvas')", 10, "the graph's canvas")
        time.sleep(1)  # let the renderer settle for the picture
        shot = page.screenshot(tmp_path / "model-explorer.png")
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
        assert _page_problems(b) == []


def test_graph_file_in_the_browser(cli, kws, server, tmp_path):
    """The .tflite itself (as `inspect --json` reads it), opened by the tinyforge adapter in
    the running server: one op node per op of the imported graph."""
    graph = json.loads(run_cli(cli, "inspect", "--json", kws).stdout)
    base = server.split("?")[0]
    data = {"models": [{"url": str(kws), "adapterId": tfm.ADAPTER_ID}]}
    with Browser(tmp_path) as b:
        page = b.open(f"{base}?data={urllib.parse.quote(json.dumps(data))}")
        page.wait_for("!!document.querySelector('table.info-attrs')", 90, "graph info")
        info = page.evaluate(TABLES % "table.info-attrs")[0]
        assert ["op node count", str(len(graph["ops"]) + 2)] in info, info
        assert _page_problems(b) == []


def _check_conversion(model: dict, program: bool) -> None:
    """A node per op, an edge per activation operand use and per model output, the output
    shapes and (programs) kernels in the node metadata."""
    g = tfg.to_graph(model)
    ops = {n.id: n for n in g.nodes}
    assert [n.id for n in g.nodes] == \
        [tfg.INPUTS] + [o["name"] for o in model["ops"]] + [tfg.OUTPUTS]
    uses = sum(not t["constant"] for o in model["ops"] for t in o["inputs"])
    assert sum(len(n.incomingEdges) for n in g.nodes) == uses + len(model["outputs"])
    for o in model["ops"]:
        meta = {kv.key: kv.value for kv in ops[o["name"]].outputsMetadata[0].attrs}
        assert meta["shape"] == "x".join(map(str, o["outputs"][0]["shape"]))
        attrs = {kv.key: kv.value for kv in ops[o["name"]].attrs}
        assert attrs.get("kernel") == (o["kernel"] if program else None)


def test_conversion_of_the_real_model(cli, kws, compiled):
    """No browser: the graph of the .tflite (inspect --json) and of its program
    (report.json)."""
    out, report, prof = compiled
    _check_conversion(tfm.load_model(kws), False)
    _check_conversion(tfm.load_model(out), True)
    assert tfm.load_model(out)["ops"] == report["ops"]
    # The overlay provider Model Explorer runs from its side panel (profile path asked).
    from tinyforge.explorer.main import TinyforgeProfile
    r = TinyforgeProfile().run("tinyforge_profile", str(out / "program.bin"), "g",
                               {"profile": str(prof)}, None)
    assert r.error == ""
    assert [d.name for d in r.result] == ["MACs", "bytes", "instructions"]
    bad = TinyforgeProfile().run("tinyforge_profile", str(out / "program.bin"), "g",
                                 {"profile": str(out / "nope.json")}, None)
    assert bad.result is None and "no such file" in bad.error


def test_graph_file_of_pytorch(cli, tmp_path):
    """A .tfg from tinyforge.export (kind qdq: quantize / dequantize ops), as is and compiled
    for the board (`--target`: the program's report.json, written where asked)."""
    tfg_path = export_tiny(tmp_path / "tiny.tfg")
    graph = tfm.load_model(tfg_path)
    assert [o["name"] for o in graph["ops"]] == \
        [o["name"] for o in json.loads(run_cli(cli, "inspect", "--json", tfg_path).stdout)["ops"]]
    _check_conversion(graph, False)
    quant = [m for n in tfg.to_graph(graph).nodes for m in n.outputsMetadata
             if dict((kv.key, kv.value) for kv in m.attrs)["dtype"] == "int8"]
    assert quant and all("scale" in dict((kv.key, kv.value) for kv in m.attrs)["quantization"]
                         for m in quant)
    program = tfm.load_model(tfg_path, BOARD, out_dir=tmp_path / "out")
    assert (tmp_path / "out" / "program.bin").is_file()
    _check_conversion(program, True)


def test_bad_input_is_one_line_and_exit_2(cli, kws, compiled, tmp_path):
    """Checked before Model Explorer loads (no server starts)."""
    out, report, prof = compiled
    junk = tmp_path / "junk.tfg"
    junk.write_text("not a model")
    other = json.loads(prof.read_text())
    other["ops"] = other["ops"][1:]
    (tmp_path / "other.json").write_text(json.dumps(other))
    cases = {"missing": [tmp_path / "nope.tfg"], "not a model": [junk],
             "no report.json": [tmp_path], "other board": [out, "--target", "an385"],
             "profile of another program": [out, "--profile", tmp_path / "other.json"],
             "profile not JSON": [out, "--profile", junk]}
    for what, args in cases.items():
        proc = run_cli(cli, "explore", *args, "--no-browser", check=False)
        assert proc.returncode == 2, (what, proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (what, proc.stderr)
        assert proc.stdout == "", what
    assert "a directory without report.json" in run_cli(cli, "explore", tmp_path,
                                                        check=False).stderr


def test_model_explorer_version_is_the_pinned_one():
    """The version tested is the one pyproject's [explorer] extra and install-deps pin."""
    pin = f"ai-edge-model-explorer=={me.__version__}"
    assert f'explorer = ["{pin}"]' in (ROOT / "pyproject.toml").read_text()
    assert f'"{pin}"' in (ROOT / "scripts" / "install-deps.sh").read_text()
    assert sys.modules["model_explorer"] is me
