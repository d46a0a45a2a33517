"""The package surface: quiet import, public API, version."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tinyforge

ROOT = Path(__file__).resolve().parents[2]


def test_import_is_quiet() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", "import tinyforge"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "" and out.stderr == ""


def test_public_api() -> None:
    for name in ("export", "load_graph", "models", "UnsupportedOpError", "__version__"):
        assert hasattr(tinyforge, name), name
    assert tinyforge.__version__ == "0.1.0"
    assert f'version = "{tinyforge.__version__}"' in (ROOT / "pyproject.toml").read_text()
    assert issubclass(tinyforge.UnsupportedOpError, ValueError)
