"""pytest configuration for tests/python: import path fallback and the zoo fixture.

Helpers live in zoo_support.py; nothing imports from this file (tests/e2e has its own
conftest.py, and a module named "conftest" would be ambiguous).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

try:
    import tinyforge  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from tinyforge import models  # noqa: E402


@pytest.fixture(params=models.NAMES)
def zoo_name(request: pytest.FixtureRequest) -> str:
    return request.param
