"""Fixtures for end-to-end tests."""
import pytest

from e2e_util import find_cli


@pytest.fixture(scope="session")
def cli() -> str:
    return find_cli()
