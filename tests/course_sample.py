"""A tiny notebook that follows the course anatomy, for testing the build without the real chapters.

It has a title slide, a figure, a widget, speaker notes, math, a link and two exercises
(one with a self-check), so slides, handouts and HTML can be checked in seconds.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


def _md(text, slide="subslide"):
    return new_markdown_cell(text, metadata={"slideshow": {"slide_type": slide}})


def _code(text, slide="subslide", **meta):
    return new_code_cell(text, metadata={"slideshow": {"slide_type": slide}, **meta})


def _solution(text):
    return _code(text, "fragment", tags=["solution"], jupyter={"source_hidden": True})


def sample_notebook() -> nbformat.NotebookNode:
    cells = [
        _md("# 99 A sample lesson\nWith a little math: $n \\bmod 8$.", "slide"),
        _code(
            "import matplotlib.pyplot as plt\nimport ipywidgets as widgets\nfrom gamekit import check\nSEED = 2026",
            "skip",
        ),
        _md("## A figure", "slide"),
        _code("fig, ax = plt.subplots(figsize=(6, 3))\nax.bar(range(5), [3, 1, 4, 1, 5], color='#c0392b')\nplt.show()"),
        _md("Point at the tallest bar.", "notes"),
        _md("## A widget", "slide"),
        _code("widgets.VBox([widgets.HTML('<b>a widget</b>'), widgets.Button(description='press me')])"),
        _md("**Exercise 99.1** What is 6 times 7?"),
        _solution("# Solution\nanswer_99_1 = 6 * 7\nanswer_99_1"),
        _code("check(answer_99_1, 42, hint='multiply')", "fragment"),
        _md("**Exercise 99.2** Explain why 0 is a losing position."),
        _solution("# Solution\nprint('The player to move cannot move.')"),
        _md("## References\n[nbconvert](https://nbconvert.readthedocs.io/)", "slide"),
    ]
    return new_notebook(
        cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )


def write_sample(folder: Path, name: str = "99-sample.ipynb") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    nbformat.write(sample_notebook(), path)
    return path
