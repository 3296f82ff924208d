"""Shared fixtures: the repository root, and anyio on asyncio for the async tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the helper modules beside the tests


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
