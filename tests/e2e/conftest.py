"""Fixtures for end-to-end tests."""
import pytest

from e2e_util import board_environment, find_cli


@pytest.fixture(scope="session")
def cli() -> str:
    return find_cli()


@pytest.fixture
def board_env(cli):
    """Board runs possible, with the CLI under test (e2e_util.board_environment)."""
    with board_environment(cli):
        yield
