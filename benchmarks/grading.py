"""What grading in the sandbox costs: the same submissions graded with bubblewrap and without it.

    python benchmarks/grading.py            # the fixture's eight submissions, and chapter 4's six
    python benchmarks/grading.py --quick    # the fixture only
    python benchmarks/grading.py --class    # a class of 30 chapter-4 submissions, sandboxed, and decoding

`--class` grades 30 submissions of chapter 4 as a class hands them in (24 right or partly right,
two blank, two with a syntax error, two with an endless loop; see `_class_of_30`), two at a time
with the default limits (30 s per cell, 300 s per submission), and times the plain-data decoder
on an answer of colliding hash values against what building that set would cost CPython.

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


def _class_of_30(folder: Path) -> Path:
    from chapter04 import submissions

    master_path = ROOT / "notebooks" / "04-game-trees.ipynb"
    done = assign_notebook(master_path, folder / "assign", run_tests=False)
    kinds = submissions(nbformat.read(done.student, as_version=4), nbformat.read(master_path, as_version=4))
    mix = {"all-correct": 14, "too-many-nodes": 6, "deleted-check-cell": 4, "all-blank": 2, "syntax-error": 2}
    mix["infinite-loop"] = 30 - sum(mix.values())
    (folder / "submissions").mkdir()
    for kind, count in mix.items():
        for k in range(count):
            nbformat.write(kinds[kind], folder / "submissions" / f"{kind}-{k + 1:02d}.ipynb")
    return done.autograder


def _time(folder: Path, autograder: Path, trusted: bool, cell_timeout: float = 20) -> tuple[float, list[float], dict]:
    start = time.monotonic()
    results, _ = grade.grade(
        folder / "submissions",
        [autograder],
        folder / f"grades-{trusted}",
        cell_timeout=cell_timeout,
        jobs=2,
        trusted_code=trusted,
    )
    total = time.monotonic() - start
    return total, sorted(r.seconds for r in results), {r.student: r.total for r in results}


def _colliding_answers() -> None:
    """The decoder on a set of integers that all hash to 0, against CPython building such sets."""
    import json

    from gamekit.sandbox import plain

    modulus = 2**61 - 1
    built = {}
    for n in (2_000, 4_000, 8_000):
        items = [k * modulus for k in range(1, n + 1)]
        start = time.perf_counter()
        set(items)
        built[n] = time.perf_counter() - start
    n = 150_000
    text = json.dumps({"set": [k * modulus for k in range(1, n + 1)]})
    start = time.perf_counter()
    try:
        plain.loads(text)
        verdict = "decoded"
    except plain.PlainDataError:
        verdict = "refused"
    seconds = time.perf_counter() - start
    projected = built[8_000] * (n / 8_000) ** 2
    print(
        f"colliding set of {n:,} ({len(text) / 1e6:.1f} MB): {verdict} in {seconds:.2f} s; CPython builds such sets of"
    )
    print(
        "  "
        + ", ".join(f"{k:,} in {v:.2f} s" for k, v in built.items())
        + f" (quadratic: {n:,} would take ~{projected:,.0f} s)"
    )


def class_of_30() -> None:
    print(f"load average before: {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    _colliding_answers()
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        autograder = _class_of_30(Path(tmp))
        total, per, scores = _time(Path(tmp), autograder, trusted=False, cell_timeout=grade.CELL_TIMEOUT)
        print(
            f"class of 30 (chapter 4), sandboxed, 2 at a time: {total:.1f} s in all; per submission median "
            f"{per[len(per) // 2]:.1f} s, max {per[-1]:.1f} s; load average after: {os.getloadavg()[0]:.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the fixture only")
    parser.add_argument("--class", dest="klass", action="store_true", help="a class of 30 chapter-4 submissions")
    args = parser.parse_args()
    if args.klass:
        class_of_30()
        return
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
