"""`tinyforge report`: one self-contained HTML page of a compiled model (docs/boards.md).

    python -m tinyforge.report MODEL [--target BOARD] [--profile profile.json] -o report.html

MODEL is a graph file (.tfg, .tflite), compiled here for --target into a temporary directory
(`tinyforge compile MODEL --target BOARD`), or a directory that command wrote (its
report.json). `--profile` takes what `tinyforge profile MODEL --board B --json` printed for
the same model and board: the op table then has each op's instructions, the cost bars
default to them, and the flash split is the firmware's (linker map) besides the program's.

The page has no external reference (inline CSS, JS, SVG; the data as one JSON block the
script draws from): the op table with per-op cost bars (instructions, MACs, or activation
and constant bytes), the memory plan of each RAM region drawn as buffers in op x address
(one <rect class="buf"> per report.json buffer, the peak marked), and the flash split.
The script sets `data-tf-report="ok"` on <body> when it has drawn everything, or
`data-tf-report="error: ..."`.

Exit codes (errors.py): 0 ok, 1 failure (the page cannot be written, compile crashed),
2 invalid input (no such model, a graph file without --target, a profile of another model
or board, a model that does not compile for the target).
"""
from __future__ import annotations

import argparse
import html
import json
import sys
import tempfile
from pathlib import Path

from .compile_options import add_compile_options, compile_options
from .board_build import cli
from .errors import EXIT_OK, ErrorKind, TinyforgeError, kind_of_exit

PAGE = Path(__file__).with_name("report_page.html")
DATA_MARK = "/*TF_REPORT_DATA*/null"


class ReportError(TinyforgeError):
    """The report cannot be made as asked (kind INVALID_INPUT unless told)."""


def _load_json(path: Path, what: str) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ReportError(f"{path}: not a {what} ({e})") from None


def load_compiled(model: str | Path, target: str | None, compile_args=(),
                  out_dir: str | Path | None = None) -> dict:
    """report.json of MODEL: a `compile --target` directory read as is, or a graph file
    compiled for `target` into `out_dir` (default: a temporary directory)."""
    model = Path(model)
    if model.is_dir():
        report = _load_json(model / "report.json", "report.json of `tinyforge compile --target`")
        if report.get("schema") != "tinyforge.report/1":
            raise ReportError(f"{model / 'report.json'}: schema is {report.get('schema')!r}, "
                              "not 'tinyforge.report/1' (compile it again)")
        return report
    if not model.exists():
        raise ReportError(f"{model}: no such file")
    if not target:
        raise ReportError(f"{model} is a graph file: give --target BOARD to compile it "
                          "(or pass a `tinyforge compile --target` directory)")
    if out_dir is not None:
        return _compile(model, target, compile_args, Path(out_dir))
    with tempfile.TemporaryDirectory(prefix="tf-report-") as tmp:
        return _compile(model, target, compile_args, Path(tmp))


def _compile(model: Path, target: str, compile_args, out_dir: Path) -> dict:
    proc = cli("compile", model, "--target", target, "-o", out_dir, *compile_args)
    if proc.returncode != 0:
        said = " ".join(line.strip().removeprefix("error: ") for line in
                        (proc.stderr or proc.stdout).strip().splitlines())
        raise ReportError(f"tinyforge compile {model} --target {target}: {said}",
                          kind_of_exit(proc.returncode))
    return _load_json(out_dir / "report.json", "report.json")


def check_profile(profile: dict, report: dict, path: Path) -> None:
    """The profile must be of the same program: same schema, op count and op names."""
    if profile.get("schema") != "tinyforge.profile/1":
        raise ReportError(f"{path}: not a `tinyforge profile --json` output (schema "
                          f"{profile.get('schema')!r})")
    if profile.get("measure") == "cycles":
        raise ReportError(f"{path}: a device trace's profile (cycles, `profile --trace`): "
                          "overlay a QEMU profile (`tinyforge profile MODEL --board B --json`)")
    ops, pops = report["ops"], profile.get("ops", [])
    names = [o["name"] for o in ops]
    if len(pops) != len(ops) or [o.get("name") for o in pops] != names:
        raise ReportError(f"{path}: profiles {len(pops)} ops of {profile.get('model_name')!r} "
                          f"on {profile.get('board')}, but the compiled model has {len(ops)} "
                          f"ops of {report.get('model')!r} on {report['target']['board']}: "
                          "profile the same model for the same board")


def buffer_kind(b: dict, ops: list[dict]) -> str:
    """tensor, scratch (an op's kernel scratch) or line (a streamed op's line buffer): the
    planner names those two `<op>.scratch` and `<op>.line`, live during their op only (a
    pipe's, `<first op>.pipe.scratch` and `.pipe.line`, during its ops)."""
    k = b["first_op"]
    if 0 <= k < len(ops):
        for kind in ("scratch", "line"):
            if (b["name"] == f"{ops[k]['name']}.{kind}" and k == b["last_op"]) or \
                    b["name"] == f"{ops[k]['name']}.pipe.{kind}":
                return kind
    return "tensor"


def page_data(report: dict, profile: dict | None = None, source: str = "") -> dict:
    """What the page's script draws: report.json's fields the page shows, plus the
    profile's instructions per op and firmware flash split when given."""
    ops = []
    for i, o in enumerate(report["ops"]):
        row = {k: o.get(k) for k in ("index", "name", "type", "kernel", "macs",
                                     "activation_bytes", "constant_bytes", "scratch_bytes",
                                     "in_place")}
        row["insns"] = profile["ops"][i]["insns"] if profile else None
        ops.append(row)
    buffers = [dict(b, kind=buffer_kind(b, report["ops"])) for b in report["buffers"]]
    prof = None
    if profile:
        prof = {k: profile.get(k) for k in ("board", "cpu", "insns_per_inference",
                                            "insns_in_ops", "macs", "stack", "ram", "flash")}
    return {"schema": "tinyforge.report-page/1", "source": source,
            "model": report.get("model"), "target": report["target"],
            "regions": report["regions"], "peak": report.get("peak"),
            "ram_bytes": report.get("ram_bytes"), "flash": report["flash"],
            "kernels": report.get("kernels", []), "ops": ops, "buffers": buffers,
            "profile": prof}


def render(data: dict) -> str:
    """The page: report_page.html with the data in its JSON block (`</` escaped so no
    string in it can close the script element)."""
    text = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = PAGE.read_text()
    if page.count(DATA_MARK) != 1:
        raise ReportError(f"{PAGE}: no single data block", ErrorKind.INTERNAL)
    title = html.escape(f"{data['model'] or 'model'} on {data['target']['board']}")
    return page.replace("<title>tinyforge report</title>",
                        f"<title>tinyforge report: {title}</title>").replace(DATA_MARK, text)


def write_report(model: str | Path, output: str | Path, target: str | None = None,
                 profile: str | Path | None = None, compile_args=()) -> dict:
    """Writes the page for MODEL to `output`; returns the data drawn."""
    report = load_compiled(model, target, compile_args)
    if target and Path(model).is_dir() and target != report["target"]["board"] and \
            target != report["target"]["cpu"]:
        raise ReportError(f"{model} was compiled for {report['target']['board']}, not {target}")
    prof = None
    if profile is not None:
        prof = _load_json(Path(profile), "`tinyforge profile --json` output")
        check_profile(prof, report, Path(profile))
    data = page_data(report, prof, source=str(model))
    try:
        Path(output).write_text(render(data))
    except OSError as e:
        raise ReportError(f"{output}: cannot write ({e.strerror})", ErrorKind.IO) from None
    return data


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tinyforge report",
        description="One self-contained HTML page of a compiled model: op table with per-op "
                    "cost bars, memory plan per RAM region (buffers in op x address, peak "
                    "marked), flash split. No network needed to view it.")
    p.add_argument("model", help="graph file (.tfg, .tflite; needs --target) or a "
                                 "`tinyforge compile --target -o` directory")
    p.add_argument("-o", "--output", required=True, help="HTML file to write")
    p.add_argument("--target", help="board, board.json or CPU to compile a graph file for "
                                    "(as compile --target)")
    p.add_argument("--profile", help="`tinyforge profile MODEL --board B --json` output of "
                                     "the same model and board: per-op instructions")
    add_compile_options(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    compile_args = compile_options(args)
    try:
        data = write_report(args.model, args.output, args.target, args.profile, compile_args)
    except TinyforgeError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    print(f"wrote {args.output}: {len(data['ops'])} ops, {len(data['buffers'])} buffers, "
          f"{data['target']['board']}" + (", profiled" if data["profile"] else ""))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
