"""Shared fixtures: the repository root and the process-wide module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the vectors helper


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
