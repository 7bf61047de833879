"""Shared paths for the Python package's tests (run by ./scripts/test.sh, or pytest tests/python)."""
import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def cli_path():
    """bankscope-cli from BANKSCOPE_CLI, else build/bin, else build-*/bin of this checkout."""
    env = os.environ.get("BANKSCOPE_CLI")
    if env:
        return env
    for p in [REPO / "build" / "bin" / "bankscope-cli", *sorted(REPO.glob("build-*/bin/bankscope-cli"))]:
        if p.exists():
            return str(p)
    return shutil.which("bankscope-cli")


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def cli():
    p = cli_path()
    if not p:
        pytest.skip("bankscope-cli not built (set BANKSCOPE_CLI); ./scripts/test.sh builds it")
    return p
