"""pytest configuration for tests/python: the zoo fixture.

Helpers live in zoo_support.py; nothing imports from this file (tests/e2e has its own
conftest.py, and a module named "conftest" would be ambiguous).
"""

from __future__ import annotations

import pytest

from tinyforge import models


@pytest.fixture(params=models.NAMES)
def zoo_name(request: pytest.FixtureRequest) -> str:
    return request.param
