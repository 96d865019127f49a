"""Hygiene checks for course notebooks (used by the tests and by the course build).

The conventions (COURSE.md): notebooks are stored without outputs; every cell has slide
metadata; an exercise is a markdown cell starting `**Exercise N.M**` and its solution is
the next code cell, which starts with `# Solution`, carries the tag `solution` and is
collapsed (`jupyter.source_hidden`).
"""

from __future__ import annotations

import re

import nbformat

EXERCISE = re.compile(r"^\s*\*\*Exercise (\d+)\.(\d+)")
SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "notes", "-"}


def is_solution(cell) -> bool:
    return cell.cell_type == "code" and "solution" in cell.metadata.get("tags", [])


def exercises(nb: nbformat.NotebookNode) -> list[tuple[str, int, int | None]]:
    """(exercise label, index of its markdown cell, index of its solution cell or None)."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            m = EXERCISE.match(cell.source)
            if m:
                nxt = next((j for j in range(i + 1, len(nb.cells)) if nb.cells[j].cell_type == "code"), None)
                sol = nxt if nxt is not None and is_solution(nb.cells[nxt]) else None
                found.append((f"{m.group(1)}.{m.group(2)}", i, sol))
    return found


def notebook_problems(nb: nbformat.NotebookNode, stored: bool = True) -> list[str]:
    """Everything about `nb` that breaks the course conventions (empty list when fine).

    With `stored=True` the notebook is checked as committed: no outputs allowed.
    """
    problems = []
    kernel = nb.metadata.get("kernelspec", {}).get("name")
    if kernel != "python3":
        problems.append(f"kernelspec name is {kernel!r}, expected 'python3'")
    for i, cell in enumerate(nb.cells):
        slide = cell.metadata.get("slideshow", {}).get("slide_type")
        if slide not in SLIDE_TYPES:
            problems.append(f"cell {i}: slideshow.slide_type is {slide!r}")
        if stored and cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            problems.append(f"cell {i}: stored with outputs")
        if is_solution(cell):
            if not cell.source.lstrip().startswith("# Solution"):
                problems.append(f"cell {i}: solution cell does not start with '# Solution'")
            if not cell.metadata.get("jupyter", {}).get("source_hidden"):
                problems.append(f"cell {i}: solution cell is not collapsed (jupyter.source_hidden)")
    ex = exercises(nb)
    labels = [label for label, _, _ in ex]
    for label, i, sol in ex:
        if sol is None:
            problems.append(f"Exercise {label} (cell {i}) has no tagged solution as its next code cell")
    if len(set(labels)) != len(labels):
        problems.append(f"exercise numbers repeat: {labels}")
    paired = {sol for _, _, sol in ex if sol is not None}
    for i, cell in enumerate(nb.cells):
        if is_solution(cell) and i not in paired:
            problems.append(f"cell {i}: solution with no exercise before it")
    if len(ex) < 4:
        problems.append(f"only {len(ex)} exercises (at least 4 wanted)")
    return problems
