"""Every lesson fits its hour: at most one slide page per 1.5 minutes of the length in its metadata.

The pages are counted as the reveal.js export makes them (`build.slide_pages`, checked against
nbconvert's own exporter below); the executed decks are counted again in test_notebooks.py,
where the outputs' heights can split a slide.
"""

import re
from html.parser import HTMLParser

import nbformat
import pytest
from conftest import NOTEBOOKS

from gamekit.course import build
from gamekit.course.bilingual import edition

#: Every master in each of its editions (the German prose runs longer: its deck must fit too).
EDITIONS = [(path, lang) for path in NOTEBOOKS for lang in ("en", "de")]


@pytest.mark.parametrize(("path", "lang"), EDITIONS, ids=[f"{p.stem}-{lang}" for p, lang in EDITIONS])
def test_every_deck_is_within_its_slide_budget(path, lang):
    nb = edition(nbformat.read(path, as_version=4), lang)
    minutes = build.lesson_minutes(nb)
    pages = build.slide_pages(build.slide_deck(nb, path.stem))
    assert pages <= build.slide_budget(nb) == int(minutes // 1.5), (
        f"{path.name}: {pages} slide pages for {minutes:g} minutes (at most {build.slide_budget(nb)}): "
        "move depth into an optional part (slide_type skip, labelled for readers) or a handout"
    )


@pytest.mark.parametrize(("path", "lang"), EDITIONS, ids=[f"{p.stem}-{lang}" for p, lang in EDITIONS])
def test_the_title_slide_states_the_lessons_length(path, lang):
    nb = edition(nbformat.read(path, as_version=4), lang)
    minutes = build.lesson_minutes(nb)
    title = nb.cells[0].source
    stated = [int(m) for m in re.findall(r"(\d+)\s*min", title, re.I)]  # "min", "Minuten"
    assert stated and sum(stated) == minutes or minutes == max(stated), (title[:300], minutes)


def _exported_pages(nb) -> int:
    from nbconvert import SlidesExporter

    body, _ = SlidesExporter().from_notebook_node(build.split_long_slides(nb))

    class Pages(HTMLParser):  # a page is a <section> with no <section> inside it
        def __init__(self):
            super().__init__()
            self.stack: list[bool] = []
            self.pages = 0

        def handle_starttag(self, tag, attrs):
            if tag == "section":
                if self.stack:
                    self.stack[-1] = True
                self.stack.append(False)

        def handle_endtag(self, tag):
            if tag == "section":
                self.pages += not self.stack.pop()

    parser = Pages()
    parser.feed(body)
    return parser.pages


def test_pages_are_counted_as_the_slide_export_makes_them():
    md = nbformat.v4.new_markdown_cell
    cells = [
        md("set-up", metadata={"slideshow": {"slide_type": "skip"}}),
        md("first visible: opens a slide although it says '-'", metadata={"slideshow": {"slide_type": "-"}}),
        md("a fragment", metadata={"slideshow": {"slide_type": "fragment"}}),
        md("## two", metadata={"slideshow": {"slide_type": "slide"}}),
        md("notes", metadata={"slideshow": {"slide_type": "notes"}}),
        md("sub", metadata={"slideshow": {"slide_type": "subslide"}}),
        md("optional", metadata={"slideshow": {"slide_type": "skip"}}),
        md("sub 2", metadata={"slideshow": {"slide_type": "subslide"}}),
    ]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"course": {"minutes": 6}})
    assert build.slide_pages(nb) == _exported_pages(nb) == 4
    assert build.slide_budget(nb) == 4


@pytest.mark.parametrize("bad", [None, 0, -45, "45", True])
def test_a_missing_or_bad_length_is_refused(bad):
    nb = nbformat.v4.new_notebook(metadata={} if bad is None else {"course": {"minutes": bad}})
    with pytest.raises(ValueError, match="minutes"):
        build.lesson_minutes(nb)


def _lesson_times(text: str, row: str) -> list[tuple[str, int]]:
    """[(lesson number, minutes)] from the rows of a lesson table, in order (`row` finds number and time)."""
    return [(m.group(1), sum(int(x) for x in re.findall(r"\d+", m.group(2)))) for m in re.finditer(row, text, re.M)]


def test_the_start_page_readme_and_the_teaching_guide_state_each_lessons_length():
    """The tables on the start page, in README and in docs/teaching.md ("What each lesson teaches") give
    every lesson (every part of one) the length of its metadata, in the order of the files."""
    from conftest import ROOT

    lessons = [(p.name[:2], build.lesson_minutes(nbformat.read(p, as_version=4))) for p in NOTEBOOKS[1:]]
    start = nbformat.read(NOTEBOOKS[0], as_version=4)
    table = next(c.source for c in start.cells if "| lesson | time |" in c.source)
    on_start = _lesson_times(table, r"^\| (\d\d) · [^|]+\| ([^|]+)\|")
    assert on_start == lessons, (on_start, lessons)
    for name in ("README.md", "docs/teaching.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        in_text = _lesson_times(text, r"^\| \[(\d\d)-[^|]+\| [^|]+\| ([^|]+)\|")
        assert in_text == lessons, (name, in_text, lessons)


def test_the_start_page_says_what_needs_linux():
    """No lesson is said to need "Linux or macOS" (bubblewrap is Linux only), and grading is not
    said to need no Docker (README and docs/setup.md send macOS and Windows teachers to the container)."""
    start = nbformat.read(NOTEBOOKS[0], as_version=4)
    text = "\n".join(c.source for c in start.cells)
    assert "Linux or macOS" not in text and "no\nDocker" not in text and "no Docker" not in text
    assert "not a sandbox" in text and "container" in text and "WSL 2" in text


def test_the_build_finds_both_parts_of_lesson_02(monkeypatch):
    """Lesson 02 comes in two parts with one number: `02` selects both, in order, and so does the
    build's default glob; each part is an assignment of its own."""
    from conftest import ROOT

    from gamekit.course import assign

    monkeypatch.chdir(ROOT)
    parts = [p.name for p in build.course_notebooks(["02"])]
    assert parts == ["02-red-and-blue-numbers.ipynb", "02-red-blue-part-ii.ipynb"]
    every = [p.name for p in build.course_notebooks()]
    assert every.index(parts[0]) + 1 == every.index(parts[1])
    names = [assign.assignment_name(nbformat.read(ROOT / "notebooks" / p, as_version=4)) for p in parts]
    assert names == ["02-red-and-blue-numbers", "02-red-blue-part-ii"]
