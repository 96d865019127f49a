"""A tiny master notebook that follows the course anatomy, for testing the build without the real chapters.

It is the fixture master of tests/fixtures/ (otter's assignment format): a title slide, a
figure, a widget, speaker notes, four exercises with solutions and public and hidden tests,
so slides, pages, assignments and grading can be checked in seconds.
"""

import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from make_fixture import fixture_notebook


def sample_notebook() -> nbformat.NotebookNode:
    nb = fixture_notebook()
    nb.cells[
        0
    ].source += "\nWith a little math: $n \\bmod 8$ and a link: [nbconvert](https://nbconvert.readthedocs.io/)."
    return nb


def write_sample(folder: Path, name: str = "99-sample.ipynb") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    nbformat.write(sample_notebook(), path)
    return path
