"""Suite-wide pytest policy: in CI nothing may skip.

With TINYFORGE_REQUIRE_ALL=1 (set by .ci/run) or CI=true, every skipped test is reported as
a failure that keeps the skip's reason (a missing toolchain, QEMU, CLI build, reference
model or data set is then a broken CI machine, not a pass). Outside CI a skip stays a skip,
so a developer without, say, QEMU can still run the rest.

ALLOWED_SKIPS lists the skips that are legitimately optional even in CI, as
(test node id substring, reason substring) pairs, each with the reason it is optional.
It is empty: everything the suite tests is something the project needs.
"""
from __future__ import annotations

import os

import pytest

ALLOWED_SKIPS: list[tuple[str, str]] = []


def require_all() -> bool:
    """Whether skips fail the run (CI)."""
    return os.environ.get("TINYFORGE_REQUIRE_ALL", "") not in ("", "0") or \
        os.environ.get("CI", "").lower() in ("true", "1")


def _allowed(nodeid: str, reason: str) -> bool:
    return any(n in nodeid and r in reason for n, r in ALLOWED_SKIPS)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail") or not require_all():
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if _allowed(item.nodeid, reason):
        return
    report.outcome = "failed"
    report.longrepr = (f"skipped in CI (TINYFORGE_REQUIRE_ALL / CI=true), which fails the run: "
                       f"{reason}\nInstall what is missing (scripts/install-deps.sh, make build) "
                       f"or, if this skip is truly optional, list it in conftest.py "
                       f"ALLOWED_SKIPS with the reason.")


def pytest_report_header(config):
    return "tinyforge: skips fail the run (TINYFORGE_REQUIRE_ALL / CI)" if require_all() \
        else "tinyforge: skips allowed (set TINYFORGE_REQUIRE_ALL=1 to fail on any skip)"
