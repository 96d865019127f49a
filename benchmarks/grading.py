"""What grading in the sandbox costs: the same submissions graded with bubblewrap and without it.

    python benchmarks/grading.py            # the fixture's eight submissions, and chapter 4's six
    python benchmarks/grading.py --quick    # the fixture only

Both runs use the same grader (the submission's cells, the probes, one judge process per
assignment); "trusted" only leaves out bubblewrap (`--trusted-code`). The fixture
(tests/fixtures/99-fixture.ipynb) is a tiny lesson, so its figures are the machinery's cost;
chapter 4 is a real lesson (its cells take most of the time). Two submissions at a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

from gamekit.course import grade
from gamekit.course.assign import assign_notebook


def _fixture(folder: Path) -> Path:
    from make_fixture import FIXTURE
    from submissions import write_submissions

    done = assign_notebook(FIXTURE, folder / "assign", run_tests=False)
    write_submissions(done.student, folder / "submissions")
    return done.autograder


def _chapter_04(folder: Path) -> Path:
    from chapter04 import submissions

    master_path = ROOT / "notebooks" / "04-game-trees.ipynb"
    done = assign_notebook(master_path, folder / "assign", run_tests=False)
    master = nbformat.read(master_path, as_version=4)
    (folder / "submissions").mkdir()
    for student, nb in submissions(nbformat.read(done.student, as_version=4), master).items():
        nbformat.write(nb, folder / "submissions" / f"{student}.ipynb")
    return done.autograder


def _time(folder: Path, autograder: Path, trusted: bool) -> tuple[float, list[float], dict]:
    start = time.monotonic()
    results, _ = grade.grade(
        folder / "submissions",
        [autograder],
        folder / f"grades-{trusted}",
        cell_timeout=20,
        jobs=2,
        trusted_code=trusted,
    )
    total = time.monotonic() - start
    return total, sorted(r.seconds for r in results), {r.student: r.total for r in results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the fixture only")
    args = parser.parse_args()
    cases = [("fixture (8 submissions)", _fixture)]
    if not args.quick:
        cases.append(("chapter 4 (6 submissions)", _chapter_04))
    print(f"load average before: {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    print(f"{'assignment':28} {'mode':9} {'total s':>8} {'median s/sub':>13} {'max s/sub':>10}")
    for label, make in cases:
        with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
            autograder = make(Path(tmp))
            figures = {}
            for trusted in (True, False):
                total, per, scores = _time(Path(tmp), autograder, trusted)
                figures[trusted] = (total, scores)
                mode = "trusted" if trusted else "sandbox"
                print(f"{label:28} {mode:9} {total:8.1f} {per[len(per) // 2]:13.1f} {per[-1]:10.1f}")
            ratio = figures[False][0] / figures[True][0]
            same = figures[False][1] == figures[True][1]
            print(f"{label:28} sandbox / trusted: {ratio:.2f}x; same scores: {same}")


if __name__ == "__main__":
    main()
