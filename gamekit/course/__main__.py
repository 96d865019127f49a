"""Build the course from the repository's top folder.

For the classroom:
    python -m gamekit.course assets                  # once: reveal.js, MathJax, ... from npm into _build/assets/
    python -m gamekit.course slides [NB ...]         # offline slides, no solutions   -> _build/slides/
    python -m gamekit.course slides --with-solutions # ... with the solutions
    python -m gamekit.course html [NB ...]           # executed pages to read/print   -> _build/html/

Assignments and grading (otter-grader):
    python -m gamekit.course assign [NB ...]         # student notebooks + autograders -> _build/assign/
    python -m gamekit.course assign --self-study     # copies for students alone: "correct" / "not yet"
    python -m gamekit.course grade SUBMISSIONS/      # scores CSV + feedback pages     -> _build/grades/
    python -m gamekit.course solutions [NB ...]      # self-study solutions (.ipynb, .html) -> _build/solutions/

A class on a JupyterHub, submissions through Moodle:
    python -m gamekit.course publish OUT [--self-study]          # the student edition, a git repository
    python -m gamekit.course links --hub URL --repo URL [--edition OUT] [--forge F]  # a link per lesson
    python -m gamekit.course grade SUBMISSIONS.zip --moodle-worksheet WORKSHEET.csv   # Moodle in and out
    python -m gamekit.course merge-points _build/grades/NN-title-hand-points.csv --moodle-worksheet WORKSHEET.csv

Keeping the masters tidy:
    python -m gamekit.course tidy [NB ...]           # no outputs, the kernel's own metadata

The German edition (the masters are bilingual, docs/translation.md):
    python -m gamekit.course slides --lang de ...    # every builder: the German edition -> _build/de/...
    python -m gamekit.course translate export NB > todo.json   # English prose that lacks current German
    python -m gamekit.course translate import NB done.json     # the German cells in, hashes stamped
    python -m gamekit.course translate check [NB ...]          # unpaired, stale or unlike pairs

NB is a notebook file or a two-digit chapter number (`03`); without NB every notebook is built.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import assign, build, grade, tidy


def _language_option(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--lang",
        choices=["en", "de"],
        default="en",
        help="the edition: en (default) or de, the German one (its files go to OUT/de/; docs/translation.md)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m gamekit.course",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    parser.add_argument("--out", type=Path, default=Path("_build"), help="build folder (default: _build)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "assets",
        help="install reveal.js, MathJax, RequireJS, jQuery and the widget renderer "
        "from npm (once; delete _build/assets to reinstall)",
    )
    for name, text in [
        ("slides", "execute notebooks and export offline reveal.js slides (no solutions unless asked)"),
        ("html", "execute notebooks and export one HTML page each (no solutions unless asked)"),
        ("solutions", "the self-study solutions: executed notebooks (.ipynb) and pages (.html)"),
        ("assign", "student notebooks and autograders (otter assign)"),
        ("tidy", "store notebooks without outputs and with the kernel's metadata (in place)"),
    ]:
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("notebooks", nargs="*", help="notebook files or chapter numbers (default: all)")
        if name != "tidy":
            _language_option(cmd)
        if name in ("slides", "html", "solutions"):
            cmd.add_argument("--cdn", action="store_true", help="load the web libraries from CDNs (needs internet)")
        if name in ("slides", "html"):
            cmd.add_argument("--with-solutions", action="store_true", help="show the exercises' solutions too")
        if name == "assign":
            cmd.add_argument(
                "--no-run-tests", action="store_true", help="do not run each master's tests on its solutions (faster)"
            )
            cmd.add_argument(
                "--self-study",
                action="store_true",
                help="copies for students working alone (_build/assign/self-study/): each check says "
                "'correct' or 'not yet' where an exercise has one right answer",
            )
            cmd.add_argument("--jobs", type=int, default=None, help="lessons made at once (default: number of CPUs)")
            cmd.add_argument(
                "--rebuild", action="store_true", help="make every lesson again, even those that did not change"
            )
    cmd = sub.add_parser("publish", help="the student edition (a git repository, one commit per publish)")
    cmd.add_argument("edition", type=Path, help="the edition's folder (a git repository; made if new)")
    cmd.add_argument("notebooks", nargs="*", help="notebook files or chapter numbers (default: all lessons)")
    cmd.add_argument("--self-study", action="store_true", help="the self-study copies ('correct' / 'not yet')")
    cmd.add_argument("--branch", default="main", help="the edition's branch (default: main)")
    cmd.add_argument("--no-run-tests", action="store_true", help="do not run each master's tests on its solutions")
    cmd.add_argument("--jobs", type=int, default=None, help="lessons made at once (default: number of CPUs)")
    _language_option(cmd)
    cmd = sub.add_parser("links", help="per lesson: the nbgitpuller link, a Binder link and a download link")
    cmd.add_argument("--hub", required=True, help="the JupyterHub's address, e.g. https://hub.example.edu")
    cmd.add_argument("--repo", required=True, help="where the edition is published (a git URL students can reach)")
    cmd.add_argument("--branch", default="main", help="the edition's branch (default: main)")
    cmd.add_argument("--edition", type=Path, default=None, help="the published edition (default: the lessons' names)")
    cmd.add_argument("--format", choices=["markdown", "html", "moodle", "all"], default="all")
    _language_option(cmd)
    cmd.add_argument(
        "--forge",
        choices=["gitlab", "github", "gitea", "forgejo"],
        default=None,
        help="the software of the git server, for the download links (default: from the host's name where it "
        "says so: github.com, gitlab.com, codeberg.org, 'gitlab'/'gitea'/'forgejo' in it; else this is needed)",
    )
    cmd = sub.add_parser("grade", help="grade a folder of submitted notebooks (each in a sandbox)")
    _language_option(cmd)
    cmd.add_argument("submissions", type=Path, help="folder with <student>.ipynb or <student>/<file>.ipynb")
    cmd.add_argument(
        "--autograder",
        type=Path,
        action="append",
        help="autograder zip or folder of zips (default: _build/assign/autograder); may be repeated",
    )
    cmd.add_argument(
        "--timeout",
        type=float,
        default=grade.CELL_TIMEOUT,
        help=f"seconds one cell may run before it is stopped (default {grade.CELL_TIMEOUT:g})",
    )
    cmd.add_argument(
        "--submission-time",
        type=float,
        default=grade.SUBMISSION_SECONDS,
        help="seconds one submission may run in its sandbox in all, reruns included "
        f"(default {grade.SUBMISSION_SECONDS:g})",
    )
    cmd.add_argument("--jobs", type=int, default=None, help="submissions graded at once (default: cores / 2)")
    cmd.add_argument("--grades", type=Path, default=None, help="where to write the reports (default: _build/grades)")
    cmd.add_argument(
        "--moodle-worksheet",
        type=Path,
        default=None,
        help="Moodle's offline grading worksheet (CSV): grade and feedback comment are filled in, in place",
    )
    cmd.add_argument("--feedback-column", default=None, help="the worksheet's feedback-comments header, if not known")
    cmd.add_argument("--canvas-gradebook", type=Path, default=None, help="a Canvas gradebook export: scores filled in")
    cmd.add_argument("--canvas-column", default=None, help="the gradebook's column (default: the assignment's name)")
    cmd.add_argument(
        "--replace",
        action="store_true",
        help="grade again into a folder that holds an earlier grading of the assignment "
        "(the earlier run is moved into GRADES/earlier/, not deleted)",
    )
    cmd.add_argument("--scheduler", default=None, help="grade on a Dask cluster: tls://HOST:8786 (with --tls)")
    cmd.add_argument(
        "--tls", type=Path, default=None, help="the class's certificates (python -m gamekit.tournament certs)"
    )
    cmd.add_argument(
        "--trusted-code",
        action="store_true",
        help="run the notebooks without bubblewrap's sandbox (only if you trust every file; machines without bwrap)",
    )
    _merge_parser(sub)
    _exercise_parser(sub)
    return parser


def _exercise_parser(sub) -> None:
    cmd = sub.add_parser(
        "new-exercise", help="write an exercise given as text (YAML) into a lesson's master, checked first"
    )
    cmd.add_argument("notebook", type=Path, help="the lesson's master, e.g. notebooks/01-subtraction-game.ipynb")
    cmd.add_argument("exercise", type=Path, nargs="?", help="the exercise's text (docs/authoring.md)")
    cmd.add_argument("--template", metavar="N.M", default=None, help="print a skeleton of exercise N.M instead")
    cmd.add_argument("--kind", default="compute", help="the skeleton's kind: predict, compute, modify or explain")


def _new_exercise(args: argparse.Namespace) -> int:
    """Print a skeleton, or insert the exercise after the master's last one (nothing written on an error)."""
    import nbformat

    from . import authoring

    if args.template is not None:
        print(authoring.template(args.template, args.kind), end="")
        return 0
    if args.exercise is None:
        raise ValueError("give the exercise's text file (or --template N.M for a skeleton to fill in)")
    exercise = authoring.parse_exercise(args.exercise.read_text(encoding="utf-8"))
    nb = nbformat.read(args.notebook, as_version=4)
    changed = authoring.insert_exercise(nb, exercise)
    nbformat.write(changed, args.notebook)
    print(f"Exercise {exercise.label} ({exercise.question}) written into {args.notebook}")
    return 0


def _merge_parser(sub) -> None:
    cmd = sub.add_parser(
        "merge-points", help="merge the points of exercises graded by hand into the grades, pages and worksheet"
    )
    cmd.add_argument("points", type=Path, help="the hand-points CSV that grade wrote (filled in by you)")
    cmd.add_argument("--assignment", default=None, help="the assignment (default: from the file's name)")
    cmd.add_argument("--grades", type=Path, default=None, help="the grading's folder (default: _build/grades)")
    cmd.add_argument("--autograder", type=Path, default=None, help="the assignment's autograder, if it moved")
    cmd.add_argument("--moodle-worksheet", type=Path, default=None, help="Moodle's worksheet: grade and feedback")
    cmd.add_argument("--feedback-column", default=None, help="the worksheet's feedback-comments header, if not known")
    cmd.add_argument("--canvas-gradebook", type=Path, default=None, help="a Canvas gradebook export: scores")
    cmd.add_argument("--canvas-column", default=None, help="the gradebook's column (default: the assignment's name)")
    _language_option(cmd)


def _lessons(names: list[str]) -> tuple[list[Path], Path | None]:
    """The assignment masters among `names` (default: every lesson) and the start page if it exists."""
    import nbformat

    masters = [
        p
        for p in build.course_notebooks(names, chapters_only=True)
        if assign.is_assignment(nbformat.read(p, as_version=4))
    ]
    start = sorted((Path.cwd() / "notebooks").glob("00-*.ipynb"))
    return masters, (start[0] if start and not names else None)


def _grade(args: argparse.Namespace, paths: build.BuildPaths) -> int:
    import shutil

    from ..sandbox.importpath import refuse_on_import_path
    from . import lms

    refuse_on_import_path([args.submissions] if Path(args.submissions).is_dir() else [])
    autograders = args.autograder or [paths.assign / "autograder"]
    out = args.grades or paths.grades
    moodle = None
    if lms.is_moodle_layout(args.submissions):  # with the worksheet, only its participants are graded
        sheet = args.moodle_worksheet
        known = lms.worksheet_participants(sheet, args.feedback_column) if sheet else None
        moodle = lms.moodle_submissions(args.submissions, participants=known)
    try:
        if moodle is not None:
            for who, notes in sorted(moodle.problems.items()):
                for note in notes:
                    print(f"{'participant ' + who if who else 'archive'}: {note}", file=sys.stderr)
        results, csvs = grade.grade(
            moodle.folder if moodle is not None else args.submissions,
            autograders,
            out,
            cell_timeout=args.timeout,
            submission_seconds=args.submission_time,
            jobs=args.jobs,
            trusted_code=args.trusted_code,
            replace=args.replace,
            **({"scheduler": args.scheduler, "tls": args.tls} if args.scheduler else {}),
        )
    finally:
        if moodle is not None:
            shutil.rmtree(moodle.folder, ignore_errors=True)
    for path in csvs:
        print(path)
    print(f"feedback pages: {out / 'feedback'}")
    _say_hand(out, {r.assignment for r in results})
    if args.moodle_worksheet or args.canvas_gradebook:
        graders = grade.find_autograders(autograders)
        counts: dict[str, int] = {}
        for r in results:
            if r.assignment in graders:
                counts[r.assignment] = counts.get(r.assignment, 0) + 1
        if not counts:
            raise ValueError("no submission was graded: nothing to write into the worksheet")
        name = max(sorted(counts), key=lambda n: counts[n])
        others = [r.student for r in results if r.assignment != name]
        if others:
            print(f"not in {name}'s worksheet (another assignment's notebook): {', '.join(others)}", file=sys.stderr)
        if args.moodle_worksheet:
            done = lms.fill_moodle_worksheet(args.moodle_worksheet, results, graders[name], args.feedback_column)
            _say_filled(args.moodle_worksheet, done, moodle)
        if args.canvas_gradebook:
            done = lms.fill_canvas_gradebook(args.canvas_gradebook, results, graders[name], args.canvas_column)
            _say_filled(args.canvas_gradebook, done, moodle)
    return 0


def _say_hand(out: Path, assignments: set[str]) -> None:
    from . import handgrade

    for name in sorted(assignments):
        points = handgrade.hand_points_path(out, name)
        if points.is_file():
            print(
                f"exercises graded by hand: read {out / 'hand' / name}/, fill in {points}, then "
                f"`python -m gamekit.course merge-points {points}` (with --moodle-worksheet or --canvas-gradebook)"
            )


def _merge_points(args: argparse.Namespace, paths: build.BuildPaths) -> int:
    from . import handgrade, lms

    out = args.grades or paths.grades
    name = args.assignment
    if name is None:
        stem = Path(args.points).name.removesuffix(".csv").removesuffix("-hand-points")
        found = sorted(p.stem for p in Path(out).glob("*.json"))
        name = stem if stem in found else (found[0] if len(found) == 1 else None)
        if name is None:
            raise ValueError(f"which assignment are these points for? Name it with --assignment (graded: {found})")
    results, grader = grade.load_results(out, name, args.autograder)
    hand = handgrade.read_hand_points(args.points, grader, [r.student for r in results])
    given = handgrade.apply_points(results, grader, hand)
    # the worksheets first: each refuses bad input before it changes a byte
    if args.moodle_worksheet:
        _say_filled(args.moodle_worksheet, lms.fill_moodle_worksheet(args.moodle_worksheet, results, grader,
                                                                     args.feedback_column))  # fmt: skip
    if args.canvas_gradebook:
        done = lms.fill_canvas_gradebook(args.canvas_gradebook, results, grader, args.canvas_column)
        _say_filled(args.canvas_gradebook, done)
    for path in grade.write_reports(results, {grader.name: grader}, Path(out)):
        print(path)
    print(
        f"points for {given} answer(s) merged ({len(hand.points)} participant(s) in the file); "
        f"feedback pages: {out / 'feedback'}"
    )
    return 0


def _say_filled(path: Path, done, moodle=None) -> None:
    uploads = moodle.uploads if moodle is not None else {}
    other = [n for n in done.untouched if uploads.get(n)]
    why = f"{len(done.untouched) - len(other)} without a submission" + (
        f", {len(other)} with no notebook: " + "; ".join(f"{n} (uploaded: {', '.join(uploads[n])})" for n in other)
        if other
        else ""
    )
    print(f"{path}: {len(done.filled)} row(s) filled, {len(done.untouched)} left as they were ({why})")
    if done.without_row:
        print(f"submissions without a row in {path.name}: {', '.join(done.without_row)}", file=sys.stderr)
    for student, why in sorted(done.skipped.items()):
        print(f"{student}: {why}", file=sys.stderr)


def _publish(args: argparse.Namespace, paths: build.BuildPaths) -> int:
    from . import publish

    masters, _ = _lessons(args.notebooks)
    done = publish.publish(
        args.edition,
        masters,
        paths.assign,
        self_study=args.self_study,
        branch=args.branch,
        run_tests=not args.no_run_tests,
        jobs=args.jobs,
        lang=args.lang,
    )
    for path in done.lessons:
        print(path)
    print(f"committed {done.commit}" if done.commit else "nothing changed since the last publish: no commit")
    return 0


def _links(args: argparse.Namespace) -> int:
    from . import links

    if args.edition is not None:
        lessons = links.edition_lessons(args.edition)
    else:
        from .titles import START_PAGE, lesson_title

        masters, start = _lessons([])
        lessons = [(assign.student_file_name(m), lesson_title(m.name, m)) for m in masters]
        lessons = [(START_PAGE, lesson_title(START_PAGE))] + lessons
    found = links.lesson_links(args.hub, args.repo, args.branch, lessons, args.forge)
    forms = ["markdown", "html", "moodle"] if args.format == "all" else [args.format]
    for form in forms:
        if len(forms) > 1:
            print(f"===== {form} =====")
        print(links.render(found, form))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["translate"]:  # the bilingual masters' tools (gamekit/course/bilingual.py)
        from . import bilingual

        try:
            return bilingual.main(argv[1:])
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    args = _parser().parse_args(argv)
    lang = getattr(args, "lang", "en")
    paths = build.BuildPaths(args.out.resolve())
    if lang != "en":  # the German edition: its own folders, the npm assets shared; every string and kernel in German
        import os

        from ..i18n import ENVIRONMENT_VARIABLE, set_language

        paths = build.BuildPaths(args.out.resolve() / lang, assets_root=paths.assets)
        os.environ[ENVIRONMENT_VARIABLE] = lang
        set_language(lang)
    try:
        if args.command == "assets":
            if not build.install_assets(paths):
                return 1
            print(f"assets installed in {paths.assets}")
            return 0
        if args.command == "publish":
            return _publish(args, paths)
        if args.command == "links":
            return _links(args)
        if args.command == "grade":
            return _grade(args, paths)
        if args.command == "merge-points":
            return _merge_points(args, paths)
        if args.command == "new-exercise":
            return _new_exercise(args)
        offline = False if getattr(args, "cdn", False) else None
        if args.command == "tidy":
            for path in tidy.tidy_files(build.course_notebooks(args.notebooks)):
                print(f"tidied {path}")
            return 0
        notebooks = build.course_notebooks(args.notebooks, chapters_only=True)
        if args.command == "assign":
            masters = []
            for path in notebooks:
                import nbformat

                if assign.is_assignment(nbformat.read(path, as_version=4)):
                    masters.append(path)
                elif args.notebooks:
                    raise ValueError(f"{path.name} has no '{assign.CONFIG_MARK}' cell: it is not an assignment")
                else:
                    print(f"skipped {path.name}: not in the assignment format yet", file=sys.stderr)
            done = assign.assign_all(
                masters,
                paths.assign,
                run_tests=not args.no_run_tests,
                self_study=args.self_study,
                jobs=args.jobs,
                reuse=not args.rebuild,
                lang=lang,
            )
            written = [p for a in done for p in (a.student, a.autograder)]
        elif args.command == "slides":
            written = build.build_slides(
                notebooks, paths, offline=offline, with_solutions=args.with_solutions, lang=lang
            )
        elif args.command == "solutions":
            written = build.build_solutions(notebooks, paths, offline=offline, lang=lang)
        else:
            written = build.build_html(notebooks, paths, offline=offline, with_solutions=args.with_solutions, lang=lang)
    except (ValueError, RuntimeError) as exc:  # SandboxUnavailable is a RuntimeError: its message says what to do
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    from ..sandbox.importpath import drop_current_folder

    drop_current_folder()  # done by the package's first lines already; here so that it is seen
    sys.exit(main())
