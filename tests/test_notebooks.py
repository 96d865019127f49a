"""Every notebook runs top to bottom headless, draws real figures, passes its own tests, and
exports to reveal.js slides (offline: no CDN) and to an HTML page.

A chapter is a master in otter's format: executing it runs its solutions and then its public and
hidden test cells (plain asserts), so an error anywhere, a solution that fails its own test
included, fails here. It runs with the slide style, so the same run gives the slides, whose
figures must be readable on a 1280 x 720 projector.
"""

import warnings

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT

from gamekit.course import build
from gamekit.course.execute import SLIDE_STYLE, execute_notebook
from gamekit.course.nbcheck import notebook_problems

#: Executed notebooks of this session (a second test reads the slides of the same run).
EXECUTED: dict[str, nbformat.NotebookNode] = {}


def _outputs(nb):
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for out in cell.get("outputs", []):
                yield i, out


def _executed(path):
    if path.stem not in EXECUTED:
        EXECUTED[path.stem] = execute_notebook(path, setup=SLIDE_STYLE)
    return EXECUTED[path.stem]


def _is_chapter(path) -> bool:
    return not path.name.startswith("00-")


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_and_exports(path, artifacts):
    nb = _executed(path)
    nbformat.write(nb, artifacts / f"{path.stem}.executed.ipynb")

    errors = [i for i, out in _outputs(nb) if out.get("output_type") == "error"]
    assert not errors, f"cells {errors} raised errors"
    images = [i for i, out in _outputs(nb) if "image/png" in out.get("data", {})]
    if _is_chapter(path):
        assert len(images) >= 3, f"only {len(images)} cells drew a figure (is MPLBACKEND=Agg leaking in?)"
    assert notebook_problems(nb, stored=False, chapter=_is_chapter(path)) == []

    # The course build (python -m gamekit.course slides / html) on the same executed notebook:
    # slides and page in test-artifacts/build/, with their lib/ beside them, no CDN needed.
    paths = build.BuildPaths(artifacts / "build", assets_root=ROOT / "_build" / "assets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        offline = build.install_assets(paths)
    deck = build.slide_deck(nb, path.stem)
    pages = build.slide_pages(deck)  # the executed outputs can split an over-tall slide
    assert pages <= build.slide_budget(nb), f"{pages} slide pages, at most {build.slide_budget(nb)} for this lesson"
    page = build.classroom_notebook(nb, path.stem, keep_notes=False)
    for out in (build.write_slides(deck, path.stem, paths), build.write_html(page, path.stem, paths)):
        html = out.read_text(encoding="utf-8")
        if offline:
            assert build.remote_resources(html) == [], f"{out.name} loads from the network"
        assert html.count("<section") >= 5 or out.suffixes[-2:] != [".slides", ".html"]
        if images:
            assert "data:image/png;base64" in html


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_slide_figures_are_readable_on_a_projector(path):
    """Text in every figure at least 14 px on the 1280 x 720 slide, and the figure spans half of it."""
    nb = _executed(path)
    bad = [r for r in build.notebook_figure_report(nb) if not r["ok"]]
    head = f"{len(bad)} figure(s) too small on the slides - enlarge the fonts (fontsize=...) or the figure:\n"
    assert not bad, head + (
        "\n".join(
            f"  cell {r['cell']} ({r['code']}): smallest text {r['min_font_pt']} pt = {r['min_text_px']} px "
            f"on the slide (>= {build.MIN_TEXT_PX:g} wanted), {r['share']:.0%} of the slide"
            for r in bad
        )
    )
    # the slides show what the report computed
    html = build.slides_html(build.slide_deck(nb, path.stem), local=False)
    assert len(build.figure_report(html)) == len(build.notebook_figure_report(nb))


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_figure_has_alt_text_from_its_data(path, artifacts):
    """Every picture (figure or widget snapshot) carries an alt text that names its kind and at
    least one number from its data (gamekit.views.alt); the list lands in test-artifacts/alt-texts/."""
    import re

    from gamekit.views.alt import FIGURE_KINDS

    kind = re.compile(r"^(?:\d+ panels\. 1\. )?(" + "|".join(FIGURE_KINDS) + r")\b")
    nb = _executed(path)
    found, bad = [], []
    for i, out in _outputs(nb):
        data = out.get("data", {})
        if "image/png" not in data:
            continue
        plain = data.get("text/plain", "")
        plain = plain if isinstance(plain, str) else "".join(plain)
        text = out.get("metadata", {}).get("gamekit_alt") or ("" if plain.startswith("<") else plain)
        found.append(f"- cell {i}: {text or '(none)'}")
        if not (kind.match(text) and re.search(r"\d", text)) or re.search(r"(^|\): |: )empty( |$)", text):
            bad.append(f"cell {i}: {text!r}")
    folder = artifacts / "alt-texts"
    folder.mkdir(exist_ok=True)
    (folder / f"{path.stem}.md").write_text(f"# {path.stem}\n\n" + "\n".join(found) + "\n", encoding="utf-8")
    assert not bad, "figures without an alt text naming their kind and a number:\n" + "\n".join(bad)


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_german_edition_executes_and_exports(path, artifacts):
    """The master's German edition (its German prose, the same code) runs top to bottom in a kernel that
    speaks German, keeps the course's rules, and exports to slides and a page that declare lang="de",
    fit the slide budget and show none of the catalogue's English strings (figures, alt texts, widgets,
    checks: everything the code says is German). Its pages go to test-artifacts/build/de/ (axe reads them)."""
    from gamekit.course.bilingual import shown_text
    from gamekit.i18n import untranslated, use_language

    nb = execute_notebook(path, setup=SLIDE_STYLE, lang="de")
    nbformat.write(nb, artifacts / f"{path.stem}.de.executed.ipynb")
    errors = [i for i, out in _outputs(nb) if out.get("output_type") == "error"]
    assert not errors, f"cells {errors} raised errors in the German edition"
    assert notebook_problems(nb, stored=False, chapter=_is_chapter(path)) == []
    assert nb.cells[0].metadata.get("lang") == "de", "the title is the German one"
    if _is_chapter(path):
        assert any(c.source.lstrip().startswith("**Aufgabe") for c in nb.cells), "the exercises are German"
    paths = build.BuildPaths(artifacts / "build" / "de", assets_root=ROOT / "_build" / "assets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        offline = build.install_assets(paths)
    with use_language("de"):
        deck = build.slide_deck(nb, path.stem)
        page = build.classroom_notebook(nb, path.stem, keep_notes=False)
        written = (build.write_slides(deck, path.stem, paths), build.write_html(page, path.stem, paths))
    assert build.slide_pages(deck) <= build.slide_budget(nb)
    for out in written:
        html = out.read_text(encoding="utf-8")
        assert '<html lang="de"' in html, f"{out.name} does not declare German"
        if offline:
            assert build.remote_resources(html) == [], f"{out.name} loads from the network"
    # what the slides and the page show besides code (prose, outputs, alt texts, widgets): no English
    # string of the catalogue (a listing of the library's code shows its `_("...")` as code, in every edition)
    assert untranslated(shown_text(nb)) == [], "the German edition shows English strings of the catalogue"
