"""The student edition: the git repository a class pulls onto its JupyterHub.

    python -m gamekit.course publish OUT [--self-study] [NB ...]

writes into `OUT` (a git repository, made on the first publish) what students need and nothing
else:

- the student copy of every lesson, made by `assign` (class copies with the public checks, or
  with `--self-study` the copies whose checks say "correct" or "not yet"), under the names
  `assign` gives them (`NN-title-student.ipynb`), and the start page without speaker notes;
- `gamekit/`, the course's package the lessons and their public checks import, with the data
  files the lessons read (`gamekit/data/`, the repository's `data/`): a kernel started in the
  edition's folder finds them there, whatever version the hub's image has installed;
- `README.md` for students, `requirements.txt` and `environment.yml` with the versions of the
  packages this machine ran the lessons with (the hub's image installs these).

No master, solution, hidden test, autograder or speaker note is written: every lesson is checked
with `assign.student_leaks` against its master, and `edition_problems` refuses the tree if a file
that only teachers have is in it.

Each publish is one commit on top of the previous one (nothing changed: no commit), so
nbgitpuller can merge the new version into the copies students already edited.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from urllib.parse import quote

import nbformat

from ..i18n import N_, _
from .assign import Assigned, assign_all, is_assignment, student_leaks
from .bilingual import read_edition
from .selfstudy import SELF_STUDY_NOTE
from .tidy import tidy_notebook
from .titles import START_PAGE, START_TITLE, lesson_title

__all__ = [
    "edition_problems",
    "start_page_notebook",
    "EDITION_PACKAGES",
    "publish",
    "Published",
    "requirements",
]

#: The packages a hub's image needs for the student edition (besides Python): the course's
#: dependencies, JupyterLab and a kernel, otter-grader for the public checks, nbgitpuller, and
#: jsonschema at the version range the course pins.
EDITION_PACKAGES = (
    "numpy",
    "matplotlib",
    "networkx",
    "ipywidgets",
    "tqdm",
    "scipy",
    "hypothesis",
    "otter-grader",
    "jupyterlab",
    "ipykernel",
    "nbgitpuller",
    "jsonschema",  # pinned below 4.25 (see pyproject.toml): reading a notebook stays fast
    "babel",  # the German edition's catalogue (gamekit/i18n.py reads it when the language is German)
)
#: JupyterLab's language pack per edition language: a hub's menus speak the edition's language too.
LANGUAGE_PACKS: dict[str, tuple[str, ...]] = {"de": ("jupyterlab-language-pack-de-DE",)}
#: Who the publish commits are by (the teacher's own git identity is not needed).
COMMITTER = {"GIT_AUTHOR_NAME": "gamekit publish", "GIT_AUTHOR_EMAIL": "publish@gamekit.invalid"}
_SECRET_NAME = re.compile(r"(autograder|solution|-questions\.json$|\.OTTER_LOG|ca-key\.pem|\.zip$)", re.I)
_MASTER_MARKS = re.compile(r"#\s*(ASSIGNMENT CONFIG|BEGIN (SOLUTION|TESTS|QUESTION)|END (SOLUTION|TESTS))\b")


@dataclass(frozen=True)
class Published:
    """What `publish` did: the edition's folder, its lesson files, and the new commit (None: no change)."""

    folder: Path
    lessons: tuple[Path, ...]
    commit: str | None


def requirements(packages: Sequence[str] = EDITION_PACKAGES) -> list[str]:
    """`name==version` for each package as installed here; a package not installed gets no pin."""
    pins = []
    for name in packages:
        try:
            pins.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            pins.append(name)
    return pins


def _environment_yml(pins: list[str]) -> str:
    import platform

    python = ".".join(platform.python_version_tuple()[:2])
    lines = [
        "# The packages the student edition needs, at the versions its lessons were run with.",
        "# conda env create -f environment.yml   (or: pip install -r requirements.txt)",
        "name: gamekit-student",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        f"  - python={python}",
        "  - pip",
        "  - pip:",
        *[f"      - {pin}" for pin in pins],
    ]
    return "\n".join(lines) + "\n"


def _check_text(self_study: bool) -> str:
    """What the check cell under each exercise says, in the language in force (gamekit.i18n)."""
    if self_study:
        # TRANSLATORS: "correct", "not yet": the verdicts the check shows (German: „richtig“, „noch nicht“).
        return _(
            'The cell under each exercise, `grader.check("...")`, says "correct" or "not yet" (with a hint); '
            "run it again after each change."
        )
    return _(
        'The cell under each exercise, `grader.check("...")`, runs its public checks: it says "not yet" with '
        "a hint, or that your answer has the right form. The points come from your teacher's hidden tests, "
        "after you hand in."
    )


#: How a student hands in a lesson (class editions), translated where it is shown: `_(HAND_IN)`.
# TRANSLATORS: markdown (a numbered list); keep {example} and the backticks; the menus are JupyterLab's
# (German: Datei → Notebook speichern, Datei → Herunterladen) and Moodle's ("Add submission": „Abgabe hinzufügen“).
HAND_IN = N_("""How to hand in a lesson (one notebook per lesson, through Moodle):

1. Save the lesson in JupyterLab (File → Save Notebook, or Ctrl+S).
2. With the lesson open, choose File → Download: your browser saves the file `{example}` (the
   lesson's own file, with your answers) on your computer.
3. In Moodle, open the lesson's assignment, choose "Add submission", drag that file in and save.
   Hand in the `.ipynb` file itself: not a PDF, not a screenshot, not a zip. The file's name does
   not matter; a second upload before the deadline replaces the first.

Answers you write in text cells (the "explain" exercises) are read and graded by your teacher;
the others are graded by the autograder. Your feedback appears in Moodle beside the grade.""")


def start_page_notebook(
    lessons: Sequence[tuple[str, str]], self_study: bool, lang: str = "en"
) -> nbformat.NotebookNode:
    """The edition's start page for students on a hub: open a lesson, run it, check an answer, hand
    it in (class editions), and where the solutions appear. `lessons` are (file, title) of the
    edition's lessons; the page names no other file and no command (no `pip`, no `python -m`).

    Its words are in the language in force (gamekit.i18n; `publish` sets `lang`'s); with `lang` "de" it also says
    how to switch JupyterLab's own menus to German (the edition installs its language pack)."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    listing = "\n".join(f"- [{title}]({quote(file)})" for file, title in lessons)
    example = lessons[0][0] if lessons else "01-subtraction-game-student.ipynb"
    if self_study:
        solutions = _(
            "## Solutions\n\nThis edition is for working alone: the check under each exercise tells you when an "
            "answer is right. If you are stuck, read the hint again, then ask in your course's forum."
        )
    else:
        solutions = _(
            "## Solutions\n\nThe solutions are not in this folder. Your teacher releases them after the deadline "
            "of each lesson, as a page in the Moodle course (beside the lesson's assignment)."
        )
    # the check cell's words are code: its message goes into an f-string literal (json's quoting is Python's)
    ready = _("Everything is in place (gamekit {version}).").format(version="{gamekit.__version__}")
    cells = [
        new_markdown_cell(
            f"# {_(START_TITLE)}\n\n"
            + _(
                "The lessons of the course, on your JupyterHub. Everything you need is in this folder: the "
                "lessons, and the course's Python package `gamekit/` that they use. Nothing needs installing."
            )
        ),
        new_markdown_cell(
            _(
                "## Open a lesson\n\nClick a lesson below (or its link in Moodle; both open the same file), or "
                "double-click its file in the file browser on the left:"
            )
            + "\n\n"
            + listing
        ),
        new_markdown_cell(
            # TRANSLATORS: the menus are JupyterLab's (German: Ausführen → Alle Zellen ausführen, Kernel → Kernel
            # neu starten und alle Zellen ausführen); Shift+Enter is Umschalt+Eingabe.
            _(
                "## Run it\n\nRun the cells from the top, one at a time with Shift+Enter, or all at once with "
                "Run → Run All Cells. If something looks wrong, Kernel → Restart Kernel and Run All Cells starts "
                "afresh. Try it on the cell below: it says whether everything is in place."
            )
        ),
        new_code_cell(
            "import gamekit\n"
            "from gamekit.course.checks import PublicChecks  # "
            + _("what the check under each exercise uses")
            + "\n\nprint(f"
            + json.dumps(ready, ensure_ascii=False)
            + ")"
        ),
        new_markdown_cell(
            _("## Check an answer\n\nEach exercise has a cell for your answer (it starts as `...`).")
            + " "
            + _check_text(self_study)
        ),
    ]
    if not self_study:
        cells.append(new_markdown_cell(_("## Hand in") + "\n\n" + _(HAND_IN).format(example=example)))
    cells += [
        new_markdown_cell(
            _(
                "## When your teacher updates a lesson\n\nOpen the lesson's link in Moodle again: the new "
                "version is merged into your copy and your own edits stay (where you and your teacher changed "
                "the same cell, your version is kept)."
            )
        ),
        new_markdown_cell(solutions),
    ]
    for k, cell in enumerate(cells):  # fixed ids: the same page is the same file (a republish commits nothing)
        cell.id, cell.metadata["slideshow"] = f"start-here-{k}", {"slide_type": "skip"}
    if lang == "de":  # after the "Run it" section: JupyterLab's own menus in German (the other cells keep their ids)
        language = new_markdown_cell(_lab_language_text(LANGUAGE_PACKS["de"][0]))
        language.id, language.metadata["slideshow"] = "start-here-lab-language", {"slide_type": "skip"}
        cells.insert(4, language)
    return tidy_notebook(new_notebook(cells=cells))


def _lab_language_text(pack: str) -> str:
    """The German start page's cell on switching JupyterLab's own menus to German (its language pack `pack`)."""
    # TRANSLATORS: shown in the German edition only. Settings → Language → German (Germany) - Deutsch
    # (Deutschland) and "Change and reload" are JupyterLab's English menu and button (its menus start in
    # English): keep them in English; "Einstellungen → Sprache" is the same menu once it is German.
    return _(
        "## JupyterLab's menus in German\n\nThis folder's `requirements.txt` installs JupyterLab's German "
        "language pack, `{pack}`. To switch JupyterLab's own menus to German, choose Settings → Language → "
        'German (Germany) - Deutsch (Deutschland) and confirm with "Change and reload": the page reloads in '
        "German. Once the menus are German, the same menu is Einstellungen → Sprache."
    ).format(pack=pack)


def _student_readme(lessons: list[tuple[str, str]], self_study: bool) -> str:
    """The edition's README.md for students, in the language in force (gamekit.i18n)."""
    listing = "\n".join(f"- [{title}]({quote(name)}) (`{name}`)" for name, title in lessons)
    example = next((name for name, _title in lessons if name != START_PAGE), "NN-title-student.ipynb")
    hand_in = "" if self_study else "\n" + _(HAND_IN).format(example=example) + "\n"
    start = _(
        "Start with [{start}]({page}). Open a lesson, run its cells from the top (Shift+Enter),\n"
        "and answer the exercises in the cells marked `...`."
    ).format(start=_(START_TITLE), page=START_PAGE)
    updates = _(
        "When your teacher updates a lesson, open its link again: the new version is merged into your copy\n"
        "and your own edits stay. A cell you changed and your teacher changed too keeps your version."
    )
    package = _(
        "The folder `gamekit/` is the course's Python package (the lessons import it; its data files are\n"
        "in `gamekit/data/`). To work on your own computer instead of the hub: install the packages in\n"
        "`requirements.txt`, then start JupyterLab in this folder."
    )
    title = _("# Games and the algorithms that play them: the lessons")
    return f"""{title}

{start} {_check_text(self_study)}

{updates}

{listing}
{hand_in}
{package}
"""


def edition_problems(folder: Path, masters: Iterable[Path] = ()) -> list[str]:
    """What in the edition at `folder` must not reach students: a master or an otter marker, a
    file named like an autograder or solution, a secret line of a master (`student_leaks`)."""
    folder = Path(folder)
    problems = []
    by_student_name = {f"{Path(m).stem}-student.ipynb": Path(m) for m in masters}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if ".git" in rel.parts or not path.is_file() or "__pycache__" in rel.parts:
            continue
        if path.is_symlink():
            problems.append(f"{rel}: a symbolic link")
            continue
        if _SECRET_NAME.search(rel.name):
            problems.append(f"{rel}: a file only teachers have")
        if path.suffix != ".ipynb":
            continue
        nb = nbformat.read(path, as_version=4)
        if is_assignment(nb) or any(_MASTER_MARKS.search(c.source) for c in nb.cells):
            problems.append(f"{rel}: a master notebook (otter markers)")
        if any(
            c.metadata.get("slideshow", {}).get("slide_type") == "notes"
            or {"teacher-only", "teacher_only", "teacher"} & set(c.metadata.get("tags", []))
            for c in nb.cells
        ):
            problems.append(f"{rel}: speaker notes or teacher-only cells")
        master = by_student_name.get(rel.name)
        if master is not None:  # the English edition of the master: the secrets are code, the same in both
            problems += [f"{rel}: {leak}" for leak in student_leaks(read_edition(master, "en"), nb)]
    return problems


def _git(folder: Path, *args: str) -> str:
    env = {**os.environ, **COMMITTER, "GIT_COMMITTER_NAME": COMMITTER["GIT_AUTHOR_NAME"]}
    env["GIT_COMMITTER_EMAIL"] = COMMITTER["GIT_AUTHOR_EMAIL"]
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, env=env, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {folder} failed: {done.stderr.strip()[-800:]}")
    return done.stdout


def _open_repository(out: Path, branch: str) -> None:
    if (out / ".git").is_dir():
        current = _git(out, "rev-parse", "--abbrev-ref", "HEAD").strip()
        if current != branch:
            raise ValueError(f"{out} is on branch {current!r}, not {branch!r}: check it out first")
        if _git(out, "status", "--porcelain").strip():
            raise ValueError(f"{out} has changes that were not published: commit or remove them first")
        return
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} is neither empty nor a student edition (no .git): give a new folder")
    out.mkdir(parents=True, exist_ok=True)
    _git(out, "init", "-q", "-b", branch)


def _stage(stage: Path, done: list[Assigned], start_page: bool, self_study: bool, lang: str = "en") -> list[Path]:
    import gamekit

    from ..i18n import EDITION_FILE

    package = Path(gamekit.__file__).resolve().parent
    data = package.parent / "data"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".mypy_cache")
    shutil.copytree(package, stage / "gamekit", ignore=ignore)
    if (stage / "gamekit" / "data").exists():
        shutil.rmtree(stage / "gamekit" / "data")
    if data.is_dir():
        shutil.copytree(data, stage / "gamekit" / "data", ignore=ignore)
    (stage / "gamekit" / EDITION_FILE).unlink(missing_ok=True)
    if lang != "en":  # every kernel started in the edition speaks its language (gamekit/i18n.py)
        (stage / "gamekit" / EDITION_FILE).write_text(lang + "\n", encoding="utf-8")
    lessons = []
    for a in done:
        shutil.copyfile(a.student, stage / a.student.name)
        lessons.append(stage / a.student.name)
    titled = [(p.name, lesson_title(p.name, p)) for p in lessons]
    if start_page:
        nbformat.write(start_page_notebook(titled, self_study, lang), stage / START_PAGE)
        lessons.insert(0, stage / START_PAGE)
        titled.insert(0, (START_PAGE, lesson_title(START_PAGE)))
    pins = requirements(EDITION_PACKAGES + LANGUAGE_PACKS.get(lang, ()))
    (stage / "requirements.txt").write_text("\n".join(pins) + "\n", encoding="utf-8")
    (stage / "environment.yml").write_text(_environment_yml(pins), encoding="utf-8")
    (stage / "README.md").write_text(_student_readme(titled, self_study), encoding="utf-8")
    (stage / ".gitignore").write_text(".ipynb_checkpoints/\n__pycache__/\n.OTTER_LOG\n", encoding="utf-8")
    return lessons


def publish(
    out: Path,
    masters: Sequence[Path],
    assign_dir: Path,
    self_study: bool = False,
    start_page: bool = True,
    branch: str = "main",
    run_tests: bool = True,
    jobs: int | None = None,
    message: str | None = None,
    lang: str = "en",
) -> Published:
    """Write the student edition of `masters` into the git repository `out` and commit it.

    `lang` "de" makes the German edition: the masters' German cells, the start page and README in
    German, JupyterLab's German language pack in its requirements, and the file
    `gamekit/edition-language` that makes every kernel started in it speak German (gamekit.i18n).

    The student copies come from `assign_all` (in `assign_dir`, reused where nothing changed);
    `start_page` adds the edition's own start page (`start_page_notebook`).
    Raises ValueError when the edition would hold something only teachers may see (nothing is
    committed then) or `out` is not an edition; RuntimeError when `assign` or git fails.
    """
    from ..i18n import use_language

    out = Path(out)
    masters = [Path(m) for m in masters]
    if self_study:
        print(SELF_STUDY_NOTE, file=sys.stderr)
    done = assign_all(masters, Path(assign_dir), run_tests=run_tests, self_study=self_study, jobs=jobs, lang=lang)
    _open_repository(out, branch)
    with tempfile.TemporaryDirectory(prefix="gamekit-edition-") as tmp, use_language(lang):
        stage = Path(tmp)
        lessons = _stage(stage, done, start_page, self_study, lang)
        problems = edition_problems(stage, masters)
        if problems:
            raise ValueError("the student edition would show students: " + "; ".join(problems[:8]))
        for rel in _git(out, "ls-files", "-z").split("\0"):
            if rel:
                (out / rel).unlink(missing_ok=True)
        shutil.copytree(stage, out, dirs_exist_ok=True)
    _git(out, "add", "-A")
    if not _git(out, "status", "--porcelain").strip():
        return Published(out, tuple(out / p.name for p in lessons), None)
    names = ", ".join(a.student.name for a in done)
    text = message or f"Publish {len(done)} lesson(s){' (self-study)' if self_study else ''}: {names}"
    _git(out, "commit", "-q", "-m", text)
    commit = _git(out, "rev-parse", "HEAD").strip()
    return Published(out, tuple(out / p.name for p in lessons), commit)
