"""The course build: student handouts of every notebook, offline slides and HTML pages.

Slides and HTML of the real chapters are built in test_notebooks.py (which executes each
notebook once); here the build is checked on every notebook where no execution is needed
(handouts) and end to end on a small sample notebook (slides, HTML, the command line).
"""

import subprocess
import sys
import warnings

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT
from course_sample import sample_notebook, write_sample

from gamekit.course import build
from gamekit.course.execute import execute_notebook
from gamekit.course.nbcheck import is_solution

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
    return execute_notebook(write_sample(tmp_path_factory.mktemp("sample")))


# --- handouts ---------------------------------------------------------------------------------


def _check_handout(original, handout):
    assert len(handout.cells) == len(original.cells)
    assert "widgets" not in handout.metadata
    for i, (before, after) in enumerate(zip(original.cells, handout.cells)):
        assert after.cell_type == before.cell_type
        assert after.metadata.get("slideshow") == before.metadata.get("slideshow")
        if after.cell_type == "code":
            assert after.outputs == [] and after.execution_count is None, f"cell {i} keeps outputs"
        if is_solution(before):
            assert is_solution(after), f"cell {i} lost its solution tag"
            lines = after.source.splitlines()
            assert lines[0] == build.HANDOUT_STUB
            assert lines[1:] == [f"{name} = ..." for name in build.answer_names(before.source)]
            assert not after.metadata.get("jupyter", {}).get("source_hidden"), f"stub cell {i} is still hidden"
        else:
            assert after.source == before.source, f"cell {i} changed although it is no solution"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_notebook_pairs_exercises_and_solutions(path):
    nb = nbformat.read(path, as_version=4)
    assert build.handout_problems(nb) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_handout_of_every_notebook(path, tmp_path):
    [out] = build.build_handouts([path], build.BuildPaths(tmp_path))
    original, handout = nbformat.read(path, as_version=4), nbformat.read(out, as_version=4)
    nbformat.validate(handout)
    _check_handout(original, handout)
    solutions = [c.source for c in original.cells if is_solution(c)]
    text = "\n".join(c.source for c in handout.cells)
    assert "# Solution" not in text and len(solutions) >= 4


def test_handout_of_sample_replaces_answers_with_ellipsis():
    nb = sample_notebook()
    handout = build.make_handout(nb)
    _check_handout(nb, handout)
    stubs = [c.source for c in handout.cells if is_solution(c)]
    assert stubs == ["# Your solution here\nanswer_99_1 = ...", "# Your solution here"]


def test_answer_names_finds_top_level_assignments_only():
    source = (
        "# Solution\nanswer_2_1 = 3\nx = 1\nanswer_2_1 += 1\nanswer_2_2: int = 4\n"
        "a, answer_2_3 = 1, 2\ndef f():\n    answer_local = 1\nanswers = [1]\n"
    )
    assert build.answer_names(source) == ["answer_2_1", "answer_2_2", "answer_2_3", "answers"]
    with pytest.raises(ValueError, match="not valid Python"):
        build.answer_names("answer_1 = (")


def test_handout_refuses_exercise_without_solution():
    nb = sample_notebook()
    sol = next(i for i, c in enumerate(nb.cells) if is_solution(c))
    nb.cells[sol].metadata["tags"] = []
    before = nbformat.writes(nb)
    with pytest.raises(ValueError, match=r"Exercise 99\.1 .* no tagged solution"):
        build.make_handout(nb)
    assert nbformat.writes(nb) == before, "a failed handout must not change the notebook"


def test_handout_refuses_solution_without_exercise():
    nb = sample_notebook()
    ex = next(i for i, c in enumerate(nb.cells) if c.source.startswith("**Exercise 99.2"))
    nb.cells[ex].source = "Explain why 0 is a losing position."
    with pytest.raises(ValueError, match="solution cell with no exercise"):
        build.make_handout(nb)


def test_handout_runs_and_its_checks_say_not_yet(tmp_path):
    source = write_sample(tmp_path / "nb")
    [out] = build.build_handouts([source], build.BuildPaths(tmp_path / "b"))
    nb = execute_notebook(out)
    texts = [str(o.get("data", {}).get("text/plain", "")) for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert any("Not yet: replace the ..." in t for t in texts)


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


def test_cdn_slides_do_use_remote_resources(executed_sample):
    """The check has teeth: nbconvert's defaults load from CDNs."""
    html = build.slides_html(executed_sample, local=False)
    assert any("reveal.js" in r for r in build.remote_resources(html))


def test_offline_slides_of_sample(executed_sample, offline_paths):
    out = build.write_slides(executed_sample, "99-sample", offline_paths, offline=True)
    html = out.read_text(encoding="utf-8")
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
    assert 'class="notes"' in html
    assert "application/vnd.jupyter.widget-state+json" in html
    assert html.count("<section") >= 5


def test_offline_html_of_sample(executed_sample, offline_paths):
    out = build.write_html(executed_sample, "99-sample", offline_paths, offline=True)
    html = out.read_text(encoding="utf-8")
    assert build.remote_resources(html) == []
    assert "data:image/png;base64" in html and "https://nbconvert.readthedocs.io/" in html
    assert html.count('<details class="gamekit-solution"') == 2, "each solution folded away once"
    assert (out.parent / "lib/require.js").is_file()


def test_without_npm_slides_fall_back_to_the_cdn_with_a_warning(executed_sample, tmp_path, monkeypatch):
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
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


@pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks yet")
def test_cli_handouts_builds_every_notebook(tmp_path):
    done = _cli("--out", tmp_path, "handouts")
    assert done.returncode == 0, done.stderr
    expected = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    assert sorted(p.name for p in (tmp_path / "handouts").glob("*.ipynb")) == expected


def test_cli_slides_and_html_of_one_notebook(tmp_path, offline_paths):
    source = write_sample(tmp_path / "nb")
    out = tmp_path / "out"
    out.mkdir()
    (out / "assets").symlink_to(SHARED_ASSETS, target_is_directory=True)
    done = _cli("--out", out, "slides", source)
    assert done.returncode == 0, done.stderr
    slides = out / "slides" / "99-sample.slides.html"
    assert done.stdout.split() == [str(slides)]
    assert build.remote_resources(slides.read_text(encoding="utf-8")) == []
    done = _cli("--out", out, "html", source)
    assert done.returncode == 0, done.stderr
    assert (out / "html" / "99-sample.html").is_file()


def test_cli_rejects_an_unknown_notebook(tmp_path):
    done = _cli("--out", tmp_path, "handouts", "42")
    assert done.returncode == 2 and "no notebook '42'" in done.stderr


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
