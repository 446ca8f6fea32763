"""Paths for the Python tests: ctest sets RBS_SOURCE_DIR and RBSIM_CLI (tests/CMakeLists.txt)."""
import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("RBS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def scenes() -> pathlib.Path:
    return SOURCE_DIR / "scenes"


@pytest.fixture
def rbsim_cli() -> str:
    cli = os.environ.get("RBSIM_CLI")
    if not cli:
        pytest.fail("RBSIM_CLI is not set: run the Python tests through ctest")
    return cli
