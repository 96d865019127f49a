"""How long each notebook, and each of its cells, takes to run: the classroom-pace check.

A teacher runs cells live, so every cell should finish within 3 s and every notebook within 30 s on
an otherwise idle 2-core machine. This script executes the notebooks one after the other (a fresh
kernel each, as Jupyter's "Restart and run all" does) and prints each notebook's total and its slowest
cells, flagging those over the limits. Kernel start-up is not counted.

    python benchmarks/notebook_times.py                 # every notebook
    python benchmarks/notebook_times.py 02 07 --top 5   # some of them
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
CELL_LIMIT, NOTEBOOK_LIMIT = 3.0, 30.0


def cell_seconds(cell) -> float:
    """Seconds between the kernel starting and finishing a cell (nbclient's timing metadata)."""
    timing = cell.get("metadata", {}).get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return 0.0
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
    return (parse(end) - parse(start)).total_seconds()


def run(path: Path) -> tuple[float, list[tuple[float, int, str]]]:
    nb = nbformat.read(path, as_version=4)
    os.environ.setdefault("MPLBACKEND", "Agg")
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", record_timing=True, resources={"metadata": {"path": str(path.parent)}}
    )
    began = time.perf_counter()
    client.execute()
    wall = time.perf_counter() - began
    cells = [
        (cell_seconds(c), i, "".join(c.source).splitlines()[0][:60] if c.source else "")
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
    ]
    return wall, sorted(cells, reverse=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", help="numbers or names (default: all)")
    parser.add_argument("--top", type=int, default=3, help="slowest cells shown per notebook")
    args = parser.parse_args(argv)
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    if args.notebooks:
        paths = [p for p in paths if any(p.name.startswith(k) or p.stem == k for k in args.notebooks)]
    over = 0
    print(f"{'notebook':32s} {'cells':>6s} {'sum of cells':>13s} {'wall':>7s}   slowest cells (s, index, first line)")
    for path in paths:
        wall, cells = run(path)
        total = sum(s for s, _, _ in cells)
        slow = [c for c in cells if c[0] > CELL_LIMIT]
        flag = " <-- over" if total > NOTEBOOK_LIMIT or slow else ""
        over += bool(flag)
        top = "; ".join(f"{s:.2f} [{i}] {line}" for s, i, line in cells[: args.top])
        print(f"{path.stem:32s} {len(cells):6d} {total:12.1f}s {wall:6.1f}s   {top}{flag}", flush=True)
    print(f"limits: {CELL_LIMIT:.0f} s a cell, {NOTEBOOK_LIMIT:.0f} s a notebook; {over} notebook(s) over")
    return 0


if __name__ == "__main__":
    sys.exit(main())
