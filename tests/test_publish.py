"""The student edition (`publish`) and the links per lesson (`links`).

The notebook-marked tests run `otter assign` on the fixture master (seconds); the rest use no
kernel. An edition is checked by the same leak check `assign` uses, and every link's `urlpath`
is resolved against the files committed in the edition: no dead link.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from make_fixture import FIXTURE

from gamekit.course import links, publish, titles
from gamekit.course.assign import Assigned

ROOT = Path(__file__).resolve().parent.parent


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    """The fixture master published once (the start page too); yields (edition, master, assign folder)."""
    tmp = tmp_path_factory.mktemp("publish")
    master = tmp / "masters" / FIXTURE.name
    master.parent.mkdir()
    shutil.copyfile(FIXTURE, master)
    out = tmp / "lessons"
    done = publish.publish(out, [master], tmp / "assign")
    assert done.commit is not None
    return out, master, tmp / "assign"


@pytest.mark.notebook
def test_the_edition_holds_what_students_need_and_nothing_only_teachers_have(edition):
    out, master, _ = edition
    files = set(git(out, "ls-files").split())
    assert {
        "99-fixture-student.ipynb",
        "00-start-here.ipynb",
        "README.md",
        "requirements.txt",
        "environment.yml",
    } <= files
    assert "gamekit/course/checks.py" in files and "gamekit/data/arena_seeds.json" in files
    assert not any(f.endswith(".zip") or "autograder" in f or f == FIXTURE.name for f in files)
    assert publish.edition_problems(out, [master]) == []
    student = nbformat.read(out / "99-fixture-student.ipynb", as_version=4)
    assert any("PublicChecks" in c.source for c in student.cells)  # the public checks are there
    pins = (out / "requirements.txt").read_text().split()
    assert any(p.startswith("otter-grader==") for p in pins) and any(p.startswith("nbgitpuller") for p in pins)
    [schema] = [p for p in pins if p.startswith("jsonschema==")]  # the hub's image reads notebooks fast too
    assert tuple(int(x) for x in schema.split("==")[1].split(".")[:2]) < (4, 25), schema
    assert len(git(out, "log", "--format=%H").split()) == 1


@pytest.mark.notebook
def test_the_leak_check_refuses_a_master_a_solution_or_speaker_notes_in_an_edition(edition, tmp_path):
    out, master, _ = edition
    copy = tmp_path / "copy"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns(".git"))
    assert publish.edition_problems(copy, [master]) == []
    shutil.copyfile(master, copy / "stray.ipynb")  # the master itself
    nb = nbformat.read(copy / "99-fixture-student.ipynb", as_version=4)
    masternb = nbformat.read(master, as_version=4)
    notes = next(c for c in masternb.cells if c.metadata.get("slideshow", {}).get("slide_type") == "notes")
    nb.cells.append(nbformat.v4.new_markdown_cell(notes.source))  # a speaker note's text, untagged
    nbformat.write(nb, copy / "99-fixture-student.ipynb")
    (copy / "99-fixture-autograder.zip").write_bytes(b"PK")
    problems = publish.edition_problems(copy, [master])
    assert any(p.startswith("stray.ipynb: a master") for p in problems)
    assert any(p.startswith("99-fixture-student.ipynb: speaker notes:") for p in problems)
    assert any(p.startswith("99-fixture-autograder.zip") for p in problems)


@pytest.mark.notebook
def test_a_republish_is_one_more_commit_and_none_when_nothing_changed(edition):
    out, master, assign_dir = edition
    again = publish.publish(out, [master], assign_dir)
    assert again.commit is None and len(git(out, "log", "--format=%H").split()) == 1
    nb = nbformat.read(master, as_version=4)
    nb.cells.insert(2, nbformat.v4.new_markdown_cell("A new paragraph of the lesson.", metadata=nb.cells[2].metadata))
    nbformat.write(nb, master)
    changed = publish.publish(out, [master], assign_dir)
    history = git(out, "log", "--format=%H %P").splitlines()
    assert changed.commit and len(history) == 2 and history[0].split()[1] == history[1].split()[0]  # linear
    assert "A new paragraph of the lesson." in (out / "99-fixture-student.ipynb").read_text()
    assert publish.edition_problems(out, [master]) == []


def test_publish_refuses_a_folder_that_is_not_an_edition(tmp_path):
    (tmp_path / "mine.txt").write_text("a teacher's file")
    with pytest.raises(ValueError, match="neither empty nor a student edition"):
        publish._open_repository(tmp_path, "main")
    assert (tmp_path / "mine.txt").read_text() == "a teacher's file"


@pytest.mark.notebook
def test_every_link_of_the_edition_opens_a_committed_lesson(edition):
    out, _, _ = edition
    lessons = links.edition_lessons(out)
    found = links.lesson_links(
        "https://hub.example.edu", "https://git.example.edu/course/lessons.git", "main", lessons, forge="gitlab"
    )
    committed = set(git(out, "ls-files").split())
    dead = []
    for ln in found:
        folder, file = links.urlpath_file(ln.hub)
        if folder != "lessons" or file not in committed:
            dead.append(ln.hub)
    assert len(found) == 2 and dead == []
    assert all(ln.file in committed for ln in found)


def test_nbgitpuller_links_carry_its_parameters_encoded():
    link = links.nbgitpuller_link(
        "https://hub.example.edu/", "https://github.com/uni/lessons.git", "ws-26", "04-game-trees-student.ipynb"
    )
    parts = urlsplit(link)
    assert parts.path == "/hub/user-redirect/git-pull" and "repo=https%3A%2F%2Fgithub.com%2Funi%2Flessons.git" in link
    assert parse_qs(parts.query, strict_parsing=True) == {
        "repo": ["https://github.com/uni/lessons.git"],
        "branch": ["ws-26"],
        "targetpath": ["lessons"],  # nbgitpuller's own default would be "lessons.git"
        "urlpath": ["lab/tree/lessons/04-game-trees-student.ipynb"],
    }


def test_links_name_the_folder_after_the_repository_and_refuse_bad_input():
    assert links.target_folder("https://github.com/uni/lessons.git") == "lessons"
    assert links.target_folder("https://gitlab.example.edu/a/b/lessons/") == "lessons"
    for bad in ("https://github.com/", "https://example.edu/x/..", "https://example.edu/a b"):
        with pytest.raises(ValueError, match="folder"):
            links.target_folder(bad)
    with pytest.raises(ValueError, match="--hub"):
        links.nbgitpuller_link("hub.example.edu", "https://github.com/u/r", "main", "x.ipynb")
    with pytest.raises(ValueError, match="query"):
        links.nbgitpuller_link("https://hub.example.edu/?next=evil", "https://github.com/u/r", "main", "x.ipynb")
    with pytest.raises(ValueError, match="branch"):
        links.lesson_links("https://h.edu", "https://github.com/u/r", "main;rm", [("x.ipynb", "X")])


def test_binder_and_download_links_follow_each_host():
    gh = "https://github.com/uni/lessons"
    assert links.binder_link(gh, "main", "01-a-student.ipynb") == (
        "https://mybinder.org/v2/gh/uni/lessons/main?urlpath=lab%2Ftree%2F01-a-student.ipynb"
    )
    assert links.download_link(gh + ".git", "main", "01-a-student.ipynb") == (
        "https://raw.githubusercontent.com/uni/lessons/main/01-a-student.ipynb"
    )
    gl = "https://gitlab.com/uni/ai/lessons"
    assert links.binder_link(gl, "main", "x.ipynb").startswith("https://mybinder.org/v2/gl/uni%2Fai%2Flessons/main?")
    assert (
        links.download_link(gl, "main", "x.ipynb")
        == "https://gitlab.com/uni/ai/lessons/-/raw/main/x.ipynb?inline=false"
    )
    other = "https://git.uni.edu/course/lessons"
    assert links.binder_link(other, "main", "x.ipynb").startswith(
        "https://mybinder.org/v2/git/https%3A%2F%2Fgit.uni.edu%2Fcourse%2Flessons/main?"
    )


def test_the_three_formats_hold_every_link_and_escape_html():
    found = links.lesson_links(
        "https://hub.example.edu", "https://github.com/u/lessons", "main", [("01-a-student.ipynb", "Nim & <friends>")]
    )
    md, page, moodle = (links.render(found, f) for f in ("markdown", "html", "moodle"))
    for text in (md, moodle):
        assert found[0].hub in text and found[0].binder in text and found[0].download in text
    assert "Nim &amp; &lt;friends&gt;" in page and "<friends>" not in page and "&amp;branch=main" in page
    assert moodle.startswith("Name: Nim & <friends>\nExternal URL: https://hub.example.edu/hub/user-redirect/")
    with pytest.raises(ValueError, match="unknown format"):
        links.render(found, "pdf")


@pytest.mark.slow  # publishes an edition with git in subprocesses (seconds): not in the quick loop
def test_the_links_command_prints_all_three_formats(tmp_path):
    (tmp_path / "01-a-student.ipynb").write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": "# Nim"}]}))
    done = subprocess.run(
        [sys.executable, "-m", "gamekit.course", "links", "--hub", "https://hub.example.edu", "--repo",
         "https://github.com/u/lessons", "--edition", str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "| Lesson 1 · Nim | [open](https://hub.example.edu/hub/user-redirect/git-pull?repo=" in done.stdout
    assert "===== moodle =====" in done.stdout and "<ul class=" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "gamekit.course", "links", "--hub", "hub", "--repo", "https://github.com/u/l"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert bad.returncode == 2 and "--hub" in bad.stderr


# ---------------------------------------------------------------------------------------
# The edition's start page: every instruction works in the edition
# ---------------------------------------------------------------------------------------

#: What a hub student cannot do in the edition (the teacher's repository's commands and folders).
NOT_IN_AN_EDITION = re.compile(r"\bpip\b|python -m|gamekit\.course (assign|solutions)|notebooks/|--self-study|conda")


def _named_files(text: str) -> set[str]:
    """Every file or folder a text names: link targets and `code` spans that look like paths."""
    named = {unquote(t) for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t}
    for span in re.findall(r"`([^`\n]+)`", text):
        if re.fullmatch(r"[\w./-]+\.(ipynb|txt|yml|md|py|json)|[\w.-]+/([\w.-]+/?)*", span):
            named.add(span)
    return named


def _dead_instructions(edition: Path) -> list[str]:
    """What the start page and README tell a student that does not exist or cannot be done in `edition`."""
    problems = []
    page = nbformat.read(edition / titles.START_PAGE, as_version=4)
    texts = {"README.md": (edition / "README.md").read_text(encoding="utf-8")}
    texts.update({f"{titles.START_PAGE} cell {i}": c.source for i, c in enumerate(page.cells)})
    for where, text in texts.items():
        problems += [f"{where}: {m.group(0)!r}" for m in NOT_IN_AN_EDITION.finditer(text)]
        problems += [f"{where}: names {name!r}, not in the edition" for name in sorted(_named_files(text))
                     if not (edition / name).exists()]  # fmt: skip
    return problems


def _fake_edition(tmp_path: Path, self_study: bool = False) -> Path:
    student = tmp_path / "assign" / "01-subtraction-game-student.ipynb"
    student.parent.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# The subtraction game")])
    nbformat.write(nb, student)
    done = Assigned("01-subtraction-game", ROOT / "notebooks" / "01-subtraction-game.ipynb", student, student, student)
    stage = tmp_path / "edition"
    stage.mkdir()
    publish._stage(stage, [done], True, self_study)
    return stage


@pytest.mark.parametrize("self_study", [False, True])
def test_the_start_page_names_only_what_the_edition_has_and_no_command(tmp_path, self_study):
    stage = _fake_edition(tmp_path, self_study)
    assert _dead_instructions(stage) == []
    page = nbformat.read(stage / titles.START_PAGE, as_version=4)
    text = "\n".join(c.source for c in page.cells)
    assert "[Lesson 1 · The subtraction game](01-subtraction-game-student.ipynb)" in text
    assert ("File → Download" in text and "Moodle" in text) is not self_study  # the hand-in, in class editions
    # the page's check cell runs in the edition's folder, with the edition's own package
    [code] = [c.source for c in page.cells if c.cell_type == "code"]
    done = subprocess.run([sys.executable, "-c", code + "\nprint(gamekit.__file__)"], cwd=stage,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Everything is in place" in done.stdout and str(stage / "gamekit") in done.stdout


def test_the_instruction_check_finds_a_dead_instruction(tmp_path):
    stage = _fake_edition(tmp_path)
    (stage / "01-subtraction-game-student.ipynb").unlink()
    readme = stage / "README.md"
    readme.write_text(readme.read_text() + "\nRun `pip install -e .` and open `notebooks/00-start-here.ipynb`.\n")
    problems = _dead_instructions(stage)
    assert any("'01-subtraction-game-student.ipynb', not in the edition" in p for p in problems)
    assert any("'pip'" in p for p in problems) and any("notebooks/00-start-here.ipynb" in p for p in problems)


# ---------------------------------------------------------------------------------------
# Links on any forge, lesson names from one list
# ---------------------------------------------------------------------------------------

LESSON = "01-subtraction-game-student.ipynb"


def test_download_links_follow_each_forges_documented_url_form():
    # GitHub: raw.githubusercontent.com/OWNER/REPO/BRANCH/PATH
    assert links.download_link("https://github.com/uni/lessons.git", "main", LESSON) == (
        f"https://raw.githubusercontent.com/uni/lessons/main/{LESSON}"
    )
    # GitLab (gitlab.com and a university's own): PROJECT/-/raw/BRANCH/PATH
    assert links.download_link("https://gitlab.com/uni/ai/lessons", "ws26", LESSON) == (
        f"https://gitlab.com/uni/ai/lessons/-/raw/ws26/{LESSON}?inline=false"
    )
    assert links.download_link("https://git.uni-example.de/spielsuche/lessons.git", "main", LESSON, "gitlab") == (
        f"https://git.uni-example.de/spielsuche/lessons/-/raw/main/{LESSON}?inline=false"
    )
    # Gitea and Forgejo (Codeberg): OWNER/REPO/raw/branch/BRANCH/PATH
    assert links.download_link("https://gitea.uni.de/ki/lessons", "main", LESSON) == (
        f"https://gitea.uni.de/ki/lessons/raw/branch/main/{LESSON}"
    )
    assert links.download_link("https://codeberg.org/ki/lessons.git", "main", LESSON) == (
        f"https://codeberg.org/ki/lessons/raw/branch/main/{LESSON}"
    )
    assert links.download_link("https://git.uni.de/ki/lessons", "main", LESSON, "forgejo") == (
        f"https://git.uni.de/ki/lessons/raw/branch/main/{LESSON}"
    )
    # a branch name with a slash stays one path segment
    assert "/-/raw/ws%2F26/" in links.download_link("https://gitlab.uni.de/a/lessons", "ws/26", LESSON)


def test_a_host_that_does_not_say_its_forge_is_refused_until_told():
    assert [links.forge_of(f"https://{host}/a/b") for host in
            ("github.com", "gitlab.com", "codeberg.org", "gitlab.rwth-aachen.de", "gitea.example.org",
             "forgejo.uni.de")] == ["github", "gitlab", "forgejo", "gitlab", "gitea", "forgejo"]  # fmt: skip
    with pytest.raises(ValueError, match=r"git\.uni-example\.de.*--forge github\|gitlab\|gitea\|forgejo"):
        links.lesson_links("https://hub.uni.de", "https://git.uni-example.de/k/lessons.git", "main", [(LESSON, "L")])
    with pytest.raises(ValueError, match="--forge 'bitbucket' is not known"):
        links.forge_of("https://git.uni.de/a/b", "bitbucket")


@pytest.mark.parametrize(
    "repo, kind",
    [
        ("file:///srv/lessons.git", "a path on this machine"),
        ("/srv/lessons.git", "a path on this machine"),
        ("git@git.uni.de:ki/lessons.git", "an ssh address"),
        ("ssh://git@git.uni.de/ki/lessons.git", "an ssh address"),
        ("git://git.uni.de/ki/lessons.git", "a git: URL"),
    ],
)
def test_a_repository_the_hub_cannot_pull_is_refused(repo, kind):
    for make in (
        lambda: links.nbgitpuller_link("https://hub.uni.de", repo, "main", LESSON),
        lambda: links.lesson_links("https://hub.uni.de", repo, "main", [(LESSON, "L")], forge="gitlab"),
    ):
        with pytest.raises(ValueError, match="cannot pull") as err:
            make()
        assert kind in str(err.value) and "https://git.example.edu/course/lessons.git" in str(err.value)


def test_every_lesson_has_one_name_from_one_list():
    masters = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb") if not p.name.startswith("00-"))
    assert list(titles.LESSONS) == masters  # every lesson, in the course's order, and nothing else
    for stem, title in titles.LESSONS.items():
        assert title.startswith(f"Lesson {int(stem[:2])} · "), title
        assert titles.lesson_title(f"{stem}-student.ipynb") == title == titles.lesson_title(f"{stem}.ipynb")
    # a lesson not in the list (a teacher's own) is named the same way, from its number and title cell
    own = Path(__file__).parent / "fixtures" / "99-fixture.ipynb"
    assert titles.lesson_title("99-fixture-student.ipynb", own) == "Lesson 99 · A fixture lesson"
    assert titles.lesson_title(titles.START_PAGE) == "Start here"


def test_the_links_use_the_lesson_names_of_the_list(tmp_path):
    nb = {"cells": [{"cell_type": "markdown", "source": "# Chapter 3 — TicTacToe by recursion"}]}
    (tmp_path / "03-tictactoe-recursion-student.ipynb").write_text(json.dumps(nb))
    assert links.edition_lessons(tmp_path) == [
        ("03-tictactoe-recursion-student.ipynb", "Lesson 3 · TicTacToe by recursion")
    ]
