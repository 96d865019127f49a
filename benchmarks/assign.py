"""How long `python -m gamekit.course assign` takes for every lesson: cold, then with nothing changed.

The target is all lessons in under 3 minutes on an idle 2-core machine. The machine's load is
printed before and after, because on a shared or busy machine the time grows with it.

    python benchmarks/assign.py                # every chapter, --jobs = number of CPUs
    python benchmarks/assign.py --jobs 1 01 02 # some chapters, one at a time
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from gamekit.course import assign, build


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f} (1 min) / {five:.1f} (5 min) on {os.cpu_count()} CPUs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="chapter numbers (default: all)")
    parser.add_argument("--jobs", type=int, default=None, help="lessons at once (default: number of CPUs)")
    parser.add_argument("--self-study", action="store_true", help="make the self-study copies instead")
    args = parser.parse_args(argv)
    os.chdir(Path(__file__).resolve().parent.parent)  # the notebooks/ folder is found from the top folder
    masters = build.course_notebooks(args.notebooks, chapters_only=True)
    print(f"{len(masters)} lessons, jobs={args.jobs or os.cpu_count()}, self-study={args.self_study}; before: {load()}")
    with tempfile.TemporaryDirectory(prefix="assign-bench-") as tmp:
        out = Path(tmp)
        start = time.perf_counter()
        assign.assign_all(masters, out, self_study=args.self_study, jobs=args.jobs, reuse=False)
        cold = time.perf_counter() - start
        print(f"all lessons, made from scratch: {cold:6.1f} s   ({load()})")
        start = time.perf_counter()
        assign.assign_all(masters, out, self_study=args.self_study, jobs=args.jobs)
        warm = time.perf_counter() - start
        print(f"again, same inputs:             {warm:6.1f} s   (lessons whose inputs did not change are reused)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
