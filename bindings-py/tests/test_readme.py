"""The README's Python example (tests/readme_example.txt) is real: run it as a doctest."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest


def test_readme_example() -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("yaml")
    path = Path(__file__).with_name("readme_example.txt")
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, result
    assert result.attempted >= 20
