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


def _python_blocks(markdown: str) -> str:
    """The ```python fenced blocks of a Markdown file, joined (they are doctests)."""
    blocks, inside = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            inside = line.strip() == "```python"
            continue
        if inside:
            blocks.append(line)
    return "\n".join(blocks)


def test_root_readme_python_section() -> None:
    """The repository README's Python example is a doctest too (conftest runs tests in the root)."""
    readme = Path(__file__).resolve().parents[2] / "README.md"
    text = _python_blocks(readme.read_text(encoding="utf-8"))
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", str(readme), 0)
    assert len(test.examples) >= 5
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, result
