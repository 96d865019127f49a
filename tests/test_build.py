"""The course build: offline slides and HTML pages for the classroom, the solutions set.

Slides and HTML of the real chapters are built in test_notebooks.py (which executes each
notebook once); here the build is checked end to end on the small sample master (slides,
HTML, the command line) and on its parts (what the class sees, figure sizes, permissions).
"""

import html as html_lib
import re
import stat
import subprocess
import sys
import warnings

import nbformat
import pytest
from conftest import ROOT
from course_sample import sample_notebook, write_sample

from gamekit.course import assets, assign, build
from gamekit.course.execute import SLIDE_STYLE, execute_notebook

SHARED_ASSETS = ROOT / "_build" / "assets"


@pytest.fixture(scope="session")
def offline_paths(tmp_path_factory):
    """A build folder whose npm assets are shared in _build/assets (installed once)."""
    paths = build.BuildPaths(tmp_path_factory.mktemp("build"), assets_root=SHARED_ASSETS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if not build.install_assets(paths):
            pytest.skip("npm is not installed, so offline slides cannot be built (they would use CDNs)")
    return paths


@pytest.fixture(scope="session")
def executed_sample(tmp_path_factory):
    return execute_notebook(write_sample(tmp_path_factory.mktemp("sample")), setup=SLIDE_STYLE)


def _secrets():
    return [line for lines in assign.secret_lines(sample_notebook()).values() for line in lines]


def _text(page: str) -> str:
    """What a reader sees of an HTML page (tags removed, entities decoded)."""
    return html_lib.unescape(re.sub(r"<[^>]+>", "", page))


def _modes(root):
    return {stat.S_IMODE(p.stat().st_mode) for p in [root, *root.rglob("*")] if not p.is_symlink()}


# --- what the class sees ---------------------------------------------------------------------


def test_classroom_notebook_drops_solutions_tests_and_markers_and_keeps_notes_as_notes():
    nb = sample_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell("teacher aside", metadata={"tags": ["teacher-only"]}))
    deck = build.classroom_notebook(nb, "99-sample")
    text = "\n".join(c.source for c in deck.cells)
    assert all(c.cell_type != "raw" for c in deck.cells)
    assert "answer_99_1 = [3, 11]" not in text and "best = -math.inf" not in text
    assert "nodes - 1" not in text and "failure_message" not in text
    assert "**Exercise 99.2**" in text, "the exercises stay on the slides"
    notes = [c.source for c in deck.cells if c.metadata.get("slideshow", {}).get("slide_type") == "notes"]
    assert any("secret-note" in n for n in notes) and "teacher aside" in notes
    page = build.classroom_notebook(nb, "99-sample", keep_notes=False)
    assert not any("secret-note" in c.source or "teacher aside" in c.source for c in page.cells)
    shown = build.classroom_notebook(nb, "99-sample", with_solutions=True)
    solutions = [c for c in shown.cells if "gamekit-solution" in c.metadata.get("tags", [])]
    assert any(c.source == "answer_99_1 = [3, 11]" for c in solutions)
    assert not any("# SOLUTION" in c.source or "BEGIN SOLUTION" in c.source for c in shown.cells)


@pytest.mark.notebook
def test_widgets_get_a_caption_saying_where_to_play(executed_sample):
    deck = build.classroom_notebook(executed_sample, "99-sample")
    outputs = [o for c in deck.cells if c.cell_type == "code" for o in c.outputs]
    widget = [i for i, o in enumerate(outputs) if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert widget, "the sample has a widget"
    for i in widget:
        note = outputs[i + 1]["data"]["text/plain"]
        assert "picture of the widget" in note and "99-sample in JupyterLab" in note


@pytest.mark.notebook
def test_slide_style_records_font_sizes_and_figures_fill_the_slide(executed_sample):
    figures = [o for c in executed_sample.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert figures and all(o.metadata.get("gamekit_dpi") == 150 for o in figures)
    assert all(o.metadata["gamekit_min_font_pt"] >= 14 for o in figures)
    fitted = build.fit_figures(executed_sample)
    for o in (o for c in fitted.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})):
        w, h = o.metadata["image/png"]["width"], o.metadata["image/png"]["height"]
        assert w <= build.FIGURE_BOX[0] and h <= build.FIGURE_BOX[1]
        assert w == build.FIGURE_BOX[0] or h == build.FIGURE_BOX[1], "a figure is as large as the box allows"


@pytest.mark.notebook
def test_figure_report_fails_small_text():
    assert build.figure_text_px(16, 150, 1650, 1180) == pytest.approx(16 * 150 / 72 * 1180 / 1650)
    nb = sample_notebook()
    i = next(i for i, c in enumerate(nb.cells) if "ax.bar" in c.source)
    nb.cells[i].source = nb.cells[i].source.replace("plt.show()", 'ax.set_title("tiny", fontsize=6)\nplt.show()')
    folder = ROOT / "test-artifacts"
    folder.mkdir(exist_ok=True)
    path = folder / "99-small-text.ipynb"
    nbformat.write(nb, path)
    try:
        executed = execute_notebook(path, setup=SLIDE_STYLE)
    finally:
        path.unlink()
    page = build.slides_html(build.slide_deck(executed, "99-small-text"), local=False)
    [report] = build.figure_report(page)
    assert not report["ok"] and report["min_text_px"] < build.MIN_TEXT_PX


# --- slides and HTML ----------------------------------------------------------------------


def test_remote_resources_finds_scripts_styles_and_modules_but_not_links():
    page = (
        '<script src="https://cdn.x/require.js"></script><link rel="stylesheet" href="//cdn.x/a.css">'
        "<style>@import url(https://fonts.googleapis.com/css?family=Lato);</style>"
        "<script type='module'>import m from 'https://cdn.x/m.mjs';</script>"
        "<script>var widgetRendererSrc = 'https://unpkg.com/@jupyter-widgets/html-manager@*/dist/embed-amd.js';</script>"
        '<a href="https://example.org">a link is fine</a><script src="lib/require.js"></script>'
    )
    found = build.remote_resources(page)
    assert len(found) == 5, found
    assert build.remote_resources('<a href="https://example.org">x</a><img src="data:image/png;base64,AA">') == []


@pytest.mark.notebook
def test_cdn_slides_do_use_remote_resources(executed_sample):
    """The check has teeth: nbconvert's defaults load from CDNs."""
    html = build.slides_html(executed_sample, local=False)
    assert any("reveal.js" in r for r in build.remote_resources(html))


@pytest.mark.notebook
def test_offline_slides_of_sample(executed_sample, offline_paths):
    out = build.write_slides(build.slide_deck(executed_sample, "99-sample"), "99-sample", offline_paths, offline=True)
    html = out.read_text(encoding="utf-8")
    shown = _text(html.split('class="notes"', 1)[0])
    assert not [line for line in _secrets() if line in shown], "a solution or hidden test on a slide"
    assert "secret-note" not in _text(html).split("Speaker notes")[0]
    report = build.figure_report(html)
    assert report and all(r["ok"] for r in report), report
    assert _modes(out.parent) <= {0o644, 0o755}, "built folders must be readable by others"
    assert stat.S_IMODE(offline_paths.assets.stat().st_mode) == 0o755, "so must the npm assets"
    assert build.remote_resources(html) == []
    for ref in [
        "lib/reveal.js/dist/reveal.js",
        "lib/reveal.js/plugin/notes/notes.js",
        "lib/require.js",
        "lib/jquery.min.js",
        "lib/mathjax/MathJax.js",
        "lib/html-manager/embed-amd.js",
        f"lib/reveal.js/dist/theme/{build.THEME}.css",
    ]:
        assert ref.split("?")[0] in html
        assert (out.parent / ref).is_file(), f"{ref} is referenced but was not copied next to the slides"
    assert "fonts.googleapis" not in (out.parent / f"lib/reveal.js/dist/theme/{build.THEME}.css").read_text()
    assert 'class="notes"' in html and "secret-note" in html.split('class="notes"', 1)[1]
    assert "application/vnd.jupyter.widget-state+json" in html
    assert html.count("<section") >= 5


@pytest.mark.notebook
def test_offline_html_of_sample(executed_sample, offline_paths):
    page = build.classroom_notebook(executed_sample, "99-sample", with_solutions=True, keep_notes=False)
    out = build.write_html(page, "99-sample", offline_paths, offline=True)
    html = out.read_text(encoding="utf-8")
    assert build.remote_resources(html) == []
    assert "data:image/png;base64" in html and "https://nbconvert.readthedocs.io/" in html
    assert html.count('<details class="gamekit-solution"') == 4, "each solution folded away once"
    assert "secret-note" not in html
    assert (out.parent / "lib/require.js").is_file()
    assert _modes(out.parent) <= {0o644, 0o755}


@pytest.mark.notebook
def test_without_npm_slides_fall_back_to_the_cdn_with_a_warning(executed_sample, tmp_path, monkeypatch):
    monkeypatch.setattr(assets.shutil, "which", lambda name: None)
    paths = build.BuildPaths(tmp_path / "b")
    with pytest.warns(RuntimeWarning, match="npm is not installed"):
        out = build.write_slides(executed_sample, "99-sample", paths)
    assert build.remote_resources(out.read_text(encoding="utf-8"))
    with pytest.raises(RuntimeError, match="npm"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        build.write_slides(executed_sample, "99-sample", paths, offline=True)


# --- the command line -----------------------------------------------------------------------


def _cli(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "gamekit.course", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.mark.notebook
def test_cli_slides_and_html_of_one_notebook(tmp_path, offline_paths):
    source = write_sample(tmp_path / "nb")
    out = tmp_path / "out"
    out.mkdir()
    (out / "assets").symlink_to(SHARED_ASSETS, target_is_directory=True)
    done = _cli("--out", out, "slides", source)
    assert done.returncode == 0, done.stderr
    assert "Kernel is running over TCP" not in done.stderr and "[1/1] executing 99-sample.ipynb" in done.stderr
    slides = out / "slides" / "99-sample.slides.html"
    assert done.stdout.split() == [str(slides)]
    html = slides.read_text(encoding="utf-8")
    assert build.remote_resources(html) == []
    assert "answer_99_1 = [3, 11]" not in _text(html)
    done = _cli("--out", out, "slides", "--with-solutions", source)
    assert done.returncode == 0, done.stderr
    assert "answer_99_1 = [3, 11]" in _text(slides.read_text(encoding="utf-8"))
    done = _cli("--out", out, "html", source)
    assert done.returncode == 0, done.stderr
    assert (out / "html" / "99-sample.html").is_file()


def test_cli_rejects_an_unknown_notebook(tmp_path, capsys):
    from gamekit.course.__main__ import main

    assert main(["--out", str(tmp_path), "html", "42"]) == 2
    assert "no notebook '42'" in capsys.readouterr().err


@pytest.mark.notebook
def test_split_long_slides_starts_a_subslide_where_a_slide_would_overflow(executed_sample):
    nb = executed_sample
    figure = next(c for c in nb.cells if any("image/png" in o.get("data", {}) for o in c.get("outputs", [])))
    long = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("## Many figures", metadata={"slideshow": {"slide_type": "slide"}})]
        + [
            nbformat.v4.new_code_cell(
                figure.source, metadata={"slideshow": {"slide_type": "-"}}, outputs=figure.outputs
            )
            for _ in range(6)
        ]
    )
    heights = [build.cell_height(c) for c in long.cells]
    split = build.split_long_slides(long)
    kinds = [c.metadata["slideshow"]["slide_type"] for c in split.cells]
    assert [c.metadata["slideshow"]["slide_type"] for c in long.cells].count("subslide") == 0, "input changed"
    assert kinds[0] == "slide" and "subslide" in kinds
    # every slide of the result fits the budget, or holds a single cell
    used, count = 0, 0
    for kind, height in zip(kinds, heights):
        if kind in ("slide", "subslide"):
            used, count = height, 1
        else:
            used, count = used + height, count + 1
        assert used <= build.SLIDE_BUDGET or count == 1
    # a notebook whose slides fit is left alone
    assert build.split_long_slides(nb).cells == nb.cells


@pytest.mark.notebook
def test_solutions_set_of_sample(tmp_path, offline_paths):
    """The self-study set: executed, solutions shown (folded in the page), no notes, no tests."""
    source = write_sample(tmp_path / "nb")
    paths = build.BuildPaths(tmp_path / "out", assets_root=SHARED_ASSETS)
    notebook, page = build.build_solutions([source], paths)
    assert notebook.name == "99-sample-solutions.ipynb" and page.name == "99-sample-solutions.html"
    nb = nbformat.read(notebook, as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    assert "answer_99_1 = [3, 11]" in text and "best = -math.inf" in text
    assert "secret-note" not in text and "nodes - 1" not in text and "# SOLUTION" not in text
    assert any(c.cell_type == "code" and c.outputs for c in nb.cells), "the solutions are executed"
    html = page.read_text(encoding="utf-8")
    assert html.count('<details class="gamekit-solution"') == 4 and "secret-note" not in html
    assert build.remote_resources(html) == []
    assert _modes(paths.solutions) <= {0o644, 0o755}


def test_links_in_text_are_underlined_on_pages_and_slides():
    """axe-core's link-in-text-block: a link in running text differs from its text by more than
    colour (tests/browser runs axe itself on the built pages)."""
    rule = re.compile(r"\.jp-RenderedHTMLCommon a:not\(\.anchor-link\)[^{]*\{[^}]*text-decoration: underline")
    for template in (build.HTML_TEMPLATE, build.SLIDES_TEMPLATE):
        assert rule.search(template)
    assert re.search(r"\.reveal \.slides a:not\(\.anchor-link\)\s*\{[^}]*underline", build.SLIDES_TEMPLATE)


@pytest.mark.notebook
def test_cli_builds_the_german_edition_into_its_own_folder(tmp_path):
    """`solutions --lang de` and `html --lang de`: the German prose in place of the English, the page
    declaring lang="de", below OUT/de/ (English untouched), a kernel that speaks German (a figure's
    catalogue string in German), and the solutions' folder marked so that Lab's kernel there does too."""
    from gamekit.course.bilingual import import_cells

    source = write_sample(tmp_path / "nb")
    nb = nbformat.read(source, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    german = "# Ein deutscher Titel" if first.source.lstrip().startswith("# ") else "Ein deutscher Absatz."
    import_cells(nb, {first["id"]: german})
    nbformat.write(nb, source)
    out = tmp_path / "out"
    out.mkdir()
    (out / "assets").symlink_to(SHARED_ASSETS, target_is_directory=True)
    done = _cli("--out", out, "solutions", "--lang", "de", source)
    assert done.returncode == 0, done.stderr
    page = (out / "de" / "solutions" / "99-sample-solutions.html").read_text(encoding="utf-8")
    assert '<html lang="de"' in page and german.lstrip("# ") in page and first.source[:30] not in page
    assert (out / "de" / "solutions" / ".gamekit-language").read_text(encoding="utf-8").strip() == "de"
    assert not (out / "solutions").exists(), "the English edition's folder is not touched"
    done = _cli("--out", out, "html", "--lang", "de", source)
    assert done.returncode == 0, done.stderr
    assert '<html lang="de"' in (out / "de" / "html" / "99-sample.html").read_text(encoding="utf-8")
