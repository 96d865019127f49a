"""Build the course for the classroom: offline slides, pages to read, student notebooks, solutions.

From the master notebooks in `notebooks/`, each written below `_build/` (`buildpaths`):

- slides (`_build/slides/NN-title.slides.html`): the notebook executed with the slide style
  (figures drawn for a projector, see `execute.SLIDE_STYLE`), solutions, tests and otter's
  marker cells removed (unless `--with-solutions`), speaker notes in the speaker view only,
  each widget a static picture with a caption saying where to play it, and exported to
  reveal.js with scripts and styles from npm next to the slides (`assets`), so the folder works
  from a USB stick (file://) or a loopback server with no network at all. A slide whose
  cells would not fit the screen is split into sub-slides (`slidefit`), and what is still a
  little too tall is shrunk to fit. Every figure is sized to span the slide, and its smallest
  text is recorded on the image (`data-min-font-pt`, `data-dpi`) for `scripts/check_slides.py`
  (`figures`).
- html (`_build/html/NN-title.html`): the executed notebook as one page to read or print,
  cleaned as the slides are (no speaker notes), with the same local assets.
- student notebooks and autograders (`_build/assign/`, see `assign.py`), the solutions set
  (`_build/solutions/`: executed, speaker notes and tests removed, .ipynb and .html).

The exporters' templates are nbconvert's own with our blocks, kept as files in
`gamekit/course/templates/` (package data). Everything built is readable by others (folders
0755, files 0644). Without npm the slides fall back to the CDN, with a clear warning.
"""

from __future__ import annotations

import copy
import functools
import html as html_lib
import re
import sys
import time
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

import nbformat

from ..i18n import _, pgettext
from . import assign
from .assets import (
    ASSET_PACKAGES,
    LIB_FILES,
    THEME,
    asset_config,
    assets_installed,
    copy_lib,
    install_assets,
    remote_resources,
)
from .buildpaths import BuildPaths, default_paths
from .execute import SLIDE_STYLE, execute_notebook
from .figures import (
    FIGURE_BOX,
    MIN_FIGURE_SHARE,
    MIN_TEXT_PX,
    figure_report,
    figure_text_px,
    figures_as_png,
    fit_figures,
    notebook_figure_report,
)
from .slidefit import (
    MINUTES_PER_SLIDE,
    SLIDE_BUDGET,
    SLIDE_HEIGHT,
    SLIDE_WIDTH,
    cell_height,
    lesson_minutes,
    slide_budget,
    slide_pages,
    split_long_slides,
)
from .tidy import make_readable

# The builders, and (under the same names) the parts they are made of, from the modules that hold them.
__all__ = [
    "asset_config",
    "ASSET_PACKAGES",
    "assets_installed",
    "build_html",
    "build_slides",
    "build_solutions",
    "BuildPaths",
    "cell_height",
    "classroom_notebook",
    "copy_lib",
    "course_notebooks",
    "default_paths",
    "FIGURE_BOX",
    "figure_report",
    "figure_text_px",
    "fit_figures",
    "HTML_TEMPLATE",
    "install_assets",
    "LIB_FILES",
    "MIN_FIGURE_SHARE",
    "MIN_TEXT_PX",
    "notebook_figure_report",
    "page_html",
    "remote_resources",
    "SLIDE_BUDGET",
    "SLIDE_HEIGHT",
    "SLIDE_WIDTH",
    "MINUTES_PER_SLIDE",
    "lesson_minutes",
    "slide_budget",
    "slide_pages",
    "slide_deck",
    "slides_html",
    "SLIDES_TEMPLATE",
    "split_long_slides",
    "THEME",
    "figures_as_png",
    "widget_pictures",
    "write_html",
    "write_slides",
]


# ---------------------------------------------------------------------------------------
# The exporters' templates
# ---------------------------------------------------------------------------------------


def _template_part(name: str) -> str:
    """A part of the exporters' templates, from `gamekit/course/templates/` (package data),
    without the file's final newline."""
    return (resources.files("gamekit.course") / "templates" / name).read_text(encoding="utf-8").removesuffix("\n")


# Our templates: nbconvert's own with three changes. (1) No Mermaid module import (no-mermaid.j2:
# the course uses no Mermaid, and an ES module import from a CDN breaks offline and from file://).
# (2) Style rules so that slides read well on a projector (slide-style.html: no prompts, code
# wraps instead of running off the slide, figures capped in height, headings not in capitals).
# (3) Our own reveal.js start-up (reveal-start.j2): slides start at the top (not centred), and a
# slide whose content is taller than the slide is shrunk to fit (down to 75 %), beyond that it
# scrolls. Both templates share: figures that carry their smallest font size and dpi (recorded
# by the slide style), so the size of their text on the slide can be measured
# (scripts/check_slides.py), and their alt text (gamekit.views.alt: the output's `gamekit_alt`
# metadata, else its text/plain when that is not matplotlib's "<Figure size ...>"); on pages, the
# data table behind a figure follows it, folded (measured-png.j2). Contrast (WCAG AA, 4.5:1):
# JupyterLab's prompt and syntax colours are a little too light, darker ones keep their hues, and
# a visible focus ring for keyboard users (readable-style.html). The widget renderer draws a
# widget's pictures (ipywidgets' Image) without alt text and a slider's handle without a name;
# the caption under the widget carries the alt text of the widget's own snapshot, and
# widget-alt.html gives it to its pictures, and each handle its slider's label.
_HEAD = "{%- extends 'index.html.j2' -%}" + _template_part("no-mermaid.j2") + "\n" + _template_part("measured-png.j2")
_READABLE = _template_part("readable-style.html")
_WIDGET_ALT = _template_part("widget-alt.html")
SLIDES_TEMPLATE = (
    _HEAD
    + "\n{% block html_head_css %}{{ super() }}\n"
    + _template_part("slide-style.html")
    + "\n"
    + _READABLE
    + _template_part("slide-number-style.html")
    + _WIDGET_ALT
    + "{% endblock html_head_css %}\n"
    + _template_part("reveal-start.j2")
    + "\n"
)
# In the HTML page to read, solutions (shown only with --with-solutions, and in the solutions
# set) are folded away (click to open): folded-cells.j2. The words the templates show (the fold's
# label, a figure's data table's, a figure's alt text of last resort) are not in them: they come
# through gettext as the exporters' resources (`template_labels`), in the language in force.
HTML_TEMPLATE = (
    _HEAD
    + "\n\n"
    + _template_part("folded-cells.j2")
    + "\n{% block html_head_css %}{{ super() }}"
    + _template_part("page-style.html")
    + _READABLE
    + _WIDGET_ALT
    + "{% endblock html_head_css %}"
)


# ---------------------------------------------------------------------------------------
# Exporting
# ---------------------------------------------------------------------------------------


def _prepare_offline(paths: BuildPaths, outdir: Path, offline: bool | None) -> bool:
    """Install assets and copy `lib/` next to the output; False means 'use the CDN'."""
    outdir.mkdir(parents=True, exist_ok=True)
    make_readable(outdir)
    if offline is False:
        return False
    if install_assets(paths):
        copy_lib(paths, outdir)
        return True
    if offline:
        raise RuntimeError("offline slides need the npm assets, and npm is not available")
    return False


def notebook_language(nb: nbformat.NotebookNode) -> str:
    """The language of a notebook's prose: "de" for a master's German edition, else "en"."""
    return str(nb.metadata.get("gamekit", {}).get("lang", "en"))


def template_labels() -> dict[str, str]:
    """The words our templates show students (`resources["gamekit_labels"]`), in the language in force (gettext)."""
    return {
        "solution": _("Solution (click to open)"),
        "data": _("The data behind this figure"),
        # TRANSLATORS: the alt text of a figure that has no description of its own (read by a screen reader).
        "figure": pgettext("alt text of an image", "figure"),
    }


def slides_html(nb: nbformat.NotebookNode, local: bool = True) -> str:
    """An executed notebook as reveal.js slides (HTML text) whose assets live in `lib/`; the templates'
    words in the language in force (`template_labels`)."""
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(raw_template=SLIDES_TEMPLATE, language_code=notebook_language(nb), **asset_config(local))
    resources = {"gamekit_labels": template_labels()}
    body, _resources = exporter.from_notebook_node(split_long_slides(figures_as_png(nb)), resources=resources)
    return body


def page_html(nb: nbformat.NotebookNode, local: bool = True) -> str:
    """An executed notebook as one HTML page (JupyterLab look) whose assets live in `lib/`.

    A widget that left a picture of itself is shown as that picture, with its alt text: on a page
    to read or print its controls would do nothing, and the picture says what it showed. The templates'
    words are in the language in force (`template_labels`).
    """
    from nbconvert import HTMLExporter

    config = {k: v for k, v in asset_config(local).items() if not k.startswith("reveal")}
    exporter = HTMLExporter(raw_template=HTML_TEMPLATE, language_code=notebook_language(nb), **config)
    resources = {"gamekit_tables": True, "gamekit_labels": template_labels()}
    body, _resources = exporter.from_notebook_node(widget_pictures(figures_as_png(nb)), resources=resources)
    return body


def widget_pictures(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` in which every widget output that carries a picture (PNG or HTML) shows it."""
    out = copy.deepcopy(nb)
    for cell in out.cells:
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if "application/vnd.jupyter.widget-view+json" in data and ("image/png" in data or "text/html" in data):
                del data["application/vnd.jupyter.widget-view+json"]
    return out


def write_slides(
    nb: nbformat.NotebookNode, name: str, paths: BuildPaths | None = None, offline: bool | None = None
) -> Path:
    """Write the slides of an executed notebook to `_build/slides/<name>.slides.html`.

    `offline=None` uses local assets when npm can provide them and warns otherwise;
    True insists on them; False uses the CDN.
    """
    paths = paths or default_paths()
    local = _prepare_offline(paths, paths.slides, offline)
    out = paths.slides / f"{name}.slides.html"
    out.write_text(slides_html(nb, local), encoding="utf-8")
    make_readable(out)
    return out


def write_html(
    nb: nbformat.NotebookNode, name: str, paths: BuildPaths | None = None, offline: bool | None = None
) -> Path:
    """Write an executed notebook as `_build/html/<name>.html` (assets as for the slides)."""
    paths = paths or default_paths()
    local = _prepare_offline(paths, paths.html, offline)
    out = paths.html / f"{name}.html"
    out.write_text(page_html(nb, local), encoding="utf-8")
    make_readable(out)
    return out


# ---------------------------------------------------------------------------------------
# What the classroom sees: slides and pages without solutions, tests or otter markers
# ---------------------------------------------------------------------------------------


def _widget_note(chapter: str, alt: str = "") -> nbformat.NotebookNode:
    """The caption under a widget; it carries the widget's alt text (`data-alt`), which a small
    script (`templates/widget-alt.html`) gives to the pictures the widget renderer draws without one."""
    text = _(
        "A picture of the widget, not the widget itself: to play with it, open notebook {chapter} in JupyterLab "
        "and run its cells."
    ).format(chapter=chapter)
    data_alt = f" data-alt='{html_lib.escape(alt, quote=True)}'" if alt else ""
    return nbformat.v4.new_output(
        "display_data",
        data={
            "text/html": f"<p class='gamekit-widget-note'{data_alt}>{html_lib.escape(text)}</p>",
            "text/plain": text,
        },
    )


def classroom_notebook(
    nb: nbformat.NotebookNode, chapter: str, with_solutions: bool = False, keep_notes: bool = True
) -> nbformat.NotebookNode:
    """An executed master as the class sees it on slides or a page.

    Removed: otter's marker cells (ASSIGNMENT CONFIG, BEGIN/END ...), every test cell, and
    (unless `with_solutions`) every solution cell; with `with_solutions` the solutions stay,
    tagged `gamekit-solution`, their otter markers removed, each shown one key press after
    its exercise (a `fragment`). Cells tagged `teacher-only` become
    speaker notes (`keep_notes`) or go (for pages, which have no speaker view). Every widget is
    followed by a caption saying it is a picture and where to play with it (`chapter`).
    """
    qs = assign.questions(nb)
    tests = {i for q in qs for i in q.test_cells}
    solutions = {i for q in qs for i in q.solution_cells}
    cells = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "raw" or i in tests or (i in solutions and not with_solutions):
            continue
        cell = copy.deepcopy(cell)
        if assign.is_teacher_only(cell):
            if not keep_notes:
                continue
            cell.metadata.setdefault("slideshow", {})["slide_type"] = "notes"
        if i in solutions:
            cell.metadata["tags"] = [*cell.metadata.get("tags", []), "gamekit-solution"]
            show = cell.metadata.setdefault("slideshow", {})
            if show.get("slide_type") in (None, "skip", "-"):
                show["slide_type"] = "fragment"  # asked for: one key press after the exercise
            cell.metadata.pop("jupyter", None)
            if cell.cell_type == "code":
                cell.source = assign.solution_code(cell.source)
        if cell.cell_type == "code":
            outputs = []
            for out in cell.get("outputs", []):
                outputs.append(out)
                if "application/vnd.jupyter.widget-view+json" in out.get("data", {}):
                    plain = out["data"].get("text/plain", "")
                    plain = plain if isinstance(plain, str) else "".join(plain)
                    outputs.append(_widget_note(chapter, "" if plain.startswith(("<", "VBox(", "HBox(")) else plain))
            cell.outputs = outputs
        cells.append(cell)
    out = copy.deepcopy(nb)
    out.cells = cells
    return out


# ---------------------------------------------------------------------------------------
# Whole-course commands
# ---------------------------------------------------------------------------------------


def course_notebooks(names: Iterable[str | Path] = (), chapters_only: bool = False) -> list[Path]:
    """The notebooks to build: the given files (or NN prefixes like `03`), else all of `notebooks/`.

    With `chapters_only`, the default leaves out notebooks that are no lesson (00-start-here).
    """
    folder = Path.cwd() / "notebooks"
    chosen = []
    for name in names:
        path = Path(name)
        if path.is_file():
            chosen.append(path)
            continue
        # a two-digit number selects the lesson, every part of it (02: part I and part II)
        matches = sorted(folder.glob(f"{name}-*.ipynb")) if re.fullmatch(r"\d\d", str(name)) else []
        if not matches:
            raise ValueError(
                f"no notebook {name!r}: give a path to an .ipynb file or a two-digit "
                f"chapter number (found in {folder}: {[p.name for p in sorted(folder.glob('*.ipynb'))]})"
            )
        chosen.extend(matches)
    if not chosen:
        chosen = sorted(folder.glob("[0-9][0-9]-*.ipynb"))
        if chapters_only:
            chosen = [p for p in chosen if not p.name.startswith("00-")]
        if not chosen:
            raise ValueError(f"no notebooks in {folder}: run this from the repository's top folder")
    return chosen


def _progress(k: int, n: int, what: str) -> float:
    print(f"[{k}/{n}] {what} ...", file=sys.stderr, flush=True)
    return time.monotonic()


def _done(start: float, path: Path) -> None:
    print(f"      done in {time.monotonic() - start:.1f} s: {path}", file=sys.stderr, flush=True)


def _in_language(build):
    """A builder whose `lang` argument is also the language of every string the build itself writes (gettext)."""

    @functools.wraps(build)
    def built(*args, lang: str = "en", **kwargs):
        from ..i18n import use_language

        with use_language(lang):
            return build(*args, lang=lang, **kwargs)

    return built


def slide_deck(nb: nbformat.NotebookNode, chapter: str, with_solutions: bool = False) -> nbformat.NotebookNode:
    """An executed master, ready to export as slides (classroom view, figures fitted to the slide)."""
    return fit_figures(classroom_notebook(nb, chapter, with_solutions=with_solutions))


@_in_language
def build_slides(
    notebooks: Iterable[Path],
    paths: BuildPaths | None = None,
    offline: bool | None = None,
    html: bool = False,
    with_solutions: bool = False,
    lang: str = "en",
) -> list[Path]:
    """Execute each notebook (its `lang` edition) with the slide style and write its offline slides (and, with
    `html=True`, its HTML page). Says which notebook runs and how long it took."""
    paths = paths or default_paths()
    notebooks = list(notebooks)
    written = []
    for k, path in enumerate(notebooks, 1):
        start = _progress(k, len(notebooks), f"executing {path.name} for slides")
        nb = execute_notebook(path, setup=SLIDE_STYLE, lang=lang)
        deck = slide_deck(nb, path.stem, with_solutions)
        written.append(write_slides(deck, path.stem, paths, offline))
        if html:
            page = classroom_notebook(nb, path.stem, with_solutions=with_solutions, keep_notes=False)
            written.append(write_html(page, path.stem, paths, offline))
        _done(start, written[-1])
    make_readable(paths.slides)
    return written


@_in_language
def build_html(
    notebooks: Iterable[Path],
    paths: BuildPaths | None = None,
    offline: bool | None = None,
    with_solutions: bool = False,
    lang: str = "en",
) -> list[Path]:
    """Execute each notebook (its `lang` edition) and write it as one HTML page to read or print (no speaker notes)."""
    paths = paths or default_paths()
    notebooks = list(notebooks)
    written = []
    for k, path in enumerate(notebooks, 1):
        start = _progress(k, len(notebooks), f"executing {path.name} for a page")
        executed = execute_notebook(path, lang=lang)
        page = classroom_notebook(executed, path.stem, with_solutions=with_solutions, keep_notes=False)
        written.append(write_html(page, path.stem, paths, offline))
        _done(start, written[-1])
    make_readable(paths.html)
    return written


@_in_language
def build_solutions(
    notebooks: Iterable[Path], paths: BuildPaths | None = None, offline: bool | None = None, lang: str = "en"
) -> list[Path]:
    """The self-study set in `_build/solutions/`: each master executed without speaker notes and
    tests, solutions shown, as .ipynb (outputs kept) and .html (solutions folded, click to open)."""
    from ..i18n import mark_folder

    paths = paths or default_paths()
    notebooks = list(notebooks)
    written = []
    for k, path in enumerate(notebooks, 1):
        start = _progress(k, len(notebooks), f"executing {path.name} for the solutions")
        nb = execute_notebook(path, lang=lang)
        page = classroom_notebook(nb, path.stem, with_solutions=True, keep_notes=False)
        for cell in page.cells:
            if cell.cell_type == "code" and not cell.source.strip():
                cell.outputs = []
        paths.solutions.mkdir(parents=True, exist_ok=True)
        target = paths.solutions / f"{path.stem}-solutions.ipynb"
        stored = copy.deepcopy(page)
        stored.metadata.pop("widgets", None)
        stored.cells = [c for c in stored.cells if c.metadata.get("slideshow", {}).get("slide_type") != "notes"]
        for cell in stored.cells:
            if "gamekit-solution" in cell.metadata.get("tags", []):
                cell.metadata["tags"] = [t for t in cell.metadata["tags"] if t != "gamekit-solution"] + ["solution"]
        from .tidy import KERNELSPEC

        stored.metadata["kernelspec"] = dict(KERNELSPEC)
        nbformat.write(stored, target)
        mark_folder(paths.solutions, lang)  # opened in Lab, the solutions' kernel speaks their language
        written.append(target)
        local = _prepare_offline(paths, paths.solutions, offline)
        html_path = paths.solutions / f"{path.stem}-solutions.html"
        html_path.write_text(page_html(page, local), encoding="utf-8")
        written.append(html_path)
        _done(start, html_path)
    make_readable(paths.solutions)
    return written
