"""`make demo`: the bundled DS-CNN keyword-spotting model from PyTorch to tinyforge's output.

Steps: build the zoo DS-CNN (seeded weights), quantize it to int8 with PT2E on calibration
batches, write the graph file, show `tinyforge inspect`, run it with `tinyforge run`, and
print its outputs next to PyTorch's converted model.
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
    return 0 if agree == "yes" else 1


if __name__ == "__main__":
    sys.exit(main())
