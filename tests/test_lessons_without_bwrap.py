"""Lessons 09 and 10 run top to bottom where bubblewrap is missing (macOS, Windows, a container
without user namespaces), on the same referee with the agents in plain processes, and say so; and
they leave no folder of their own in the temp folder.

`gamekit.sandbox.bwrap_path` finds bubblewrap with `shutil.which`, so the kernel here gets a PATH
of symbolic links to every program on the usual PATH except `bwrap`.
"""

import os
import tempfile
import time
from pathlib import Path

import pytest
from conftest import ROOT

from gamekit.course.execute import execute_notebook

LESSONS = {
    "09": "09-class-tournament.ipynb",
    "09b": "09-tournament-part-ii.ipynb",
    "10": "10-bring-your-own-game.ipynb",
}


@pytest.fixture
def path_without_bwrap(tmp_path, monkeypatch):
    links = tmp_path / "bin"
    links.mkdir()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            if name != "bwrap" and not (links / name).exists():
                (links / name).symlink_to(Path(folder, name))
    monkeypatch.setenv("PATH", str(links))
    import shutil

    assert shutil.which("bwrap") is None and shutil.which("python3") is not None
    return links


def _text(nb) -> str:
    return "\n".join(out.get("text", "") for c in nb.cells if c.cell_type == "code" for out in c.get("outputs", []))


@pytest.mark.notebook
@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_the_lesson_runs_without_bubblewrap_and_cleans_up(lesson, path_without_bwrap):
    prefix = f"gamekit-{lesson}-"
    before = {p.name for p in Path(tempfile.gettempdir()).glob(prefix + "*")}
    nb = execute_notebook(ROOT / "notebooks" / LESSONS[lesson])
    errors = [
        (i, out.get("ename"), out.get("evalue", "")[:200])
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for out in c.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors
    text = _text(nb)
    assert "NO SANDBOX" in text  # a full sentence says the agents run as plain processes
    if lesson == "09":
        assert "too few" in text
    elif lesson == "10":
        assert "sandboxed: False" in text and "too few" in text
    for _ in range(60):  # the kernel removes its folder as it exits, just after the last cell
        after = {p.name for p in Path(tempfile.gettempdir()).glob(prefix + "*")}
        if after <= before:
            break
        time.sleep(0.5)
    assert after <= before, f"left behind: {sorted(after - before)}"
