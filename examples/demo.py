"""`make demo`: the bundled DS-CNN keyword-spotting model from PyTorch to tinyforge's output.

Steps: build the zoo DS-CNN (seeded weights), quantize it to int8 with PT2E on calibration
batches, write the graph file, show `tinyforge inspect`, run it with `tinyforge run`, and
print its outputs next to PyTorch's converted model. Then compile it for the Cortex-M55 board
(an547), run it there under QEMU (`tinyforge run --board an547`: outputs bit-exact with the
host runtime) and print `tinyforge profile --board an547`: instructions per op and per
inference, RAM, flash (docs/boards.md). The board steps are skipped, with a note, without
arm-none-eabi-gcc or qemu-system-arm.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

import tinyforge
from tinyforge import models

OUT = Path(__file__).resolve().parents[1] / "out" / "demo"
LABELS = ["silence", "unknown", "yes", "no", "up", "down", "left", "right", "on", "off",
          "stop", "go"]


def seeded_ds_cnn() -> torch.nn.Module:
    model, _ = models.get("ds_cnn")
    g = torch.Generator().manual_seed(2026)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                m.weight.copy_(torch.randn(m.weight.shape, generator=g)
                               * (2.0 / m.weight[0].numel()) ** 0.5)
            elif isinstance(m, torch.nn.BatchNorm2d):
                m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
    return model.eval()


def main() -> int:
    cli = shutil.which("tinyforge")
    if cli is None:
        print("demo: the tinyforge command is not on PATH; run `make build`", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    model = seeded_ds_cnn()
    g = torch.Generator().manual_seed(1)
    calibration = [(torch.randn(1, 1, 49, 10, generator=g),) for _ in range(16)]
    x = torch.randn(1, 1, 49, 10, generator=g)

    print("== export: PyTorch -> int8 (PT2E, 16 calibration batches) -> graph file")
    res = tinyforge.export(model, calibration[0], calibration=calibration,
                           path=OUT / "ds_cnn.tfg", name="ds_cnn")
    print(f"   wrote {res.path}")

    print("== tinyforge inspect")
    subprocess.run([cli, "inspect", str(res.path)], check=True)

    print("== tinyforge run (host reference execution)")
    np.save(OUT / "input.npy", x.numpy())
    subprocess.run([cli, "run", str(res.path), "--input", str(OUT / "input.npy"),
                    "--output", str(OUT / "output.npy")], check=True)
    ours = np.load(OUT / "output.npy").reshape(-1)
    with torch.no_grad():
        ref = res.reference(x).numpy().reshape(-1)
        flt = model(x).numpy().reshape(-1)

    print(f"\n{'class':>8} {'float torch':>12} {'int8 torch':>12} {'tinyforge':>12}")
    for i, label in enumerate(LABELS):
        print(f"{label:>8} {flt[i]:12.5f} {ref[i]:12.5f} {ours[i]:12.5f}")
    agree = "yes" if int(np.argmax(ours)) == int(np.argmax(ref)) else "NO"
    print(f"\ntop-1: tinyforge {LABELS[int(np.argmax(ours))]}, PyTorch int8 "
          f"{LABELS[int(np.argmax(ref))]} (agree: {agree}); "
          f"max |tinyforge - PyTorch int8| = {np.max(np.abs(ours - ref)):.6f}")
    if agree != "yes":
        return 1
    return on_board(cli, res.path, x.numpy(), ref)


def on_board(cli: str, graph: Path, x: np.ndarray, ref: np.ndarray) -> int:
    """Compile for the Cortex-M55 board, run under QEMU, check against the host, profile."""
    missing = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]
    if missing:
        print(f"\n(board steps skipped: {', '.join(missing)} not found; see targets/README.md)")
        return 0
    from tinyforge import board

    target = OUT / "an547"
    print("\n== tinyforge compile --target an547 (Cortex-M55): memory plan, program, model.cc")
    subprocess.run([cli, "compile", str(graph), "--target", "an547", "-o", str(target)],
                   check=True)
    # The program takes int8 NHWC: quantize the input with its scale and zero point.
    spec = board.read_compiled(target).inputs[0]
    q = np.clip(np.round(x.transpose(0, 2, 3, 1) / spec.scale) + spec.zero_point, -128, 127)
    np.save(OUT / "input_int8.npy", q.astype(np.int8).reshape(spec.shape))

    print("== tinyforge run --board an547 (firmware under QEMU, checked against the host runtime)")
    proc = subprocess.run([cli, "run", str(target), "--board", "an547", "--input",
                           str(OUT / "input_int8.npy"), "--output", str(OUT / "board.npy")])
    if proc.returncode != 0:
        return proc.returncode
    subprocess.run([cli, "run", str(target / "program.bin"), "--input",
                    str(OUT / "input_int8.npy"), "--output", str(OUT / "host.npy")],
                   check=True, stdout=subprocess.DEVNULL)
    on_m55, host = np.load(OUT / "board.npy").reshape(-1), np.load(OUT / "host.npy").reshape(-1)
    out_spec = board.read_compiled(target).outputs[0]
    real = (on_m55.astype(np.float32) - out_spec.zero_point) * out_spec.scale
    print(f"   board int8 {on_m55.tolist()}\n   host  int8 {host.tolist()}  "
          f"(equal: {'yes' if np.array_equal(on_m55, host) else 'NO'})")
    print(f"   top-1 on the board: {LABELS[int(np.argmax(real))]} (PyTorch int8: "
          f"{LABELS[int(np.argmax(ref))]})")

    print("== tinyforge profile --board an547")
    proc = subprocess.run([cli, "profile", str(target), "--board", "an547", "--input",
                           str(OUT / "input_int8.npy")])
    return proc.returncode if np.array_equal(on_m55, host) else 1


if __name__ == "__main__":
    sys.exit(main())
