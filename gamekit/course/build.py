"""Build the course for the classroom: offline slides, pages to read, student notebooks, solutions.

From the master notebooks in `notebooks/`, each written below `_build/`:

- slides (`_build/slides/NN-title.slides.html`): the notebook executed with the slide style
  (figures drawn for a projector, see `execute.SLIDE_STYLE`), solutions, tests and otter's
  marker cells removed (unless `--with-solutions`), speaker notes in the speaker view only,
  each widget a static picture with a caption saying where to play it, and exported to
  reveal.js. nbconvert loads reveal.js, RequireJS, jQuery, MathJax and the widget renderer
  from CDNs by default; here they come from the npm registry, installed once into
  `_build/assets/`, and a copy of the few files needed goes next to the slides
  (`_build/slides/lib/`). The HTML references them by relative paths, so the folder works
  from a USB stick (file://) or a loopback server with no network at all. A slide whose
  cells would not fit the screen is split into sub-slides, and what is still a little too
  tall is shrunk to fit. Every figure is sized to span the slide, and its smallest text is
  recorded on the image (`data-min-font-pt`, `data-dpi`) for `scripts/check_slides.py`.
- html (`_build/html/NN-title.html`): the executed notebook as one page to read or print,
  cleaned as the slides are (no speaker notes), with the same local assets.
- student notebooks and autograders (`_build/assign/`, see `assign.py`), the solutions set
  (`_build/solutions/`: executed, speaker notes and tests removed, .ipynb and .html).

Everything built is readable by others (folders 0755, files 0644). Without npm the slides
fall back to the CDN, with a clear warning.
"""

from __future__ import annotations

import copy
import html as html_lib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from . import assign
from .execute import SLIDE_STYLE, execute_notebook
from .tidy import make_readable

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

#: npm packages the offline slides need, pinned: reveal.js 4.0.2 is the version nbconvert's
#: reveal template is written for; MathJax 2 because the template calls MathJax.Hub.
ASSET_PACKAGES = {
    "reveal.js": "4.0.2",
    "mathjax": "2.7.7",
    "requirejs": "2.3.7",
    "jquery": "3.7.1",
    "@jupyter-widgets/html-manager": "1.0.15",
}

#: Files and folders copied from node_modules into a built folder's `lib/`.
LIB_FILES = {
    "reveal.js/dist": "reveal.js/dist",
    "reveal.js/plugin/notes": "reveal.js/plugin/notes",
    "requirejs/require.js": "require.js",
    "jquery/dist/jquery.min.js": "jquery.min.js",
    "mathjax/MathJax.js": "mathjax/MathJax.js",
    "mathjax/config/TeX-AMS_CHTML-full.js": "mathjax/config/TeX-AMS_CHTML-full.js",
    "mathjax/config/Safe.js": "mathjax/config/Safe.js",
    "mathjax/extensions": "mathjax/extensions",
    "mathjax/jax/input/TeX": "mathjax/jax/input/TeX",
    "mathjax/jax/output/CommonHTML": "mathjax/jax/output/CommonHTML",
    "mathjax/jax/element": "mathjax/jax/element",
    "mathjax/localization/en": "mathjax/localization/en",
    "mathjax/fonts/HTML-CSS/TeX/woff": "mathjax/fonts/HTML-CSS/TeX/woff",
    "@jupyter-widgets/html-manager/dist": "html-manager",
}

#: A reveal.js theme whose fonts ship inside reveal.js (no Google Fonts import).
THEME = "white"
#: Slide size for a 16:9 projector; reveal.js scales it to the screen.
SLIDE_WIDTH, SLIDE_HEIGHT = 1280, 720

# Our templates: nbconvert's own with three changes. (1) No Mermaid module import (the course
# uses no Mermaid, and an ES module import from a CDN breaks offline and from file://).
# (2) Style rules so that slides read well on a projector: no prompts, code wraps instead
# of running off the slide, figures capped in height, headings not in capitals. (3) Our own
# reveal.js start-up: slides start at the top (not centred), and a slide whose content is
# taller than the slide is shrunk to fit (down to 75 %), beyond that it scrolls.
_NO_MERMAID = "{% block html_head_js_mermaidjs %}{% endblock html_head_js_mermaidjs %}"
_SLIDE_CSS = """
<style type="text/css">
.reveal .jp-InputPrompt, .reveal .jp-OutputPrompt { display: none !important; }
.reveal .jp-InputArea-editor pre, .reveal .jp-OutputArea-output pre {
  white-space: pre-wrap !important; word-break: break-word; font-size: 17px; line-height: 1.3; }
.reveal .jp-OutputArea-output img { max-height: 480px; max-width: 100%; object-fit: contain; }
.reveal .jp-OutputArea-output img.gamekit-figure { display: block; margin: 0 auto; }
.reveal .gamekit-widget-note { font-size: 18px; color: #555; font-style: italic; margin: 0.3em 0; }
.reveal img.widget-image, .reveal .widget-image img {
  width: auto !important; height: auto !important; max-width: 100%; max-height: 420px; object-fit: contain; }
.reveal .jp-RenderedHTMLCommon table { font-size: 18px; }
.reveal .slides section { text-align: left !important; }
.reveal h1, .reveal h2, .reveal h3, .reveal h4 { text-transform: none !important; }
.reveal .slides section.gamekit-scroll { overflow-y: auto; height: 100%; }
</style>
"""
_SLIDES_JS = """
{% block footer_js %}
<script>
require({waitSeconds: 60},
  ["{{ resources.reveal.url_prefix }}/dist/reveal.js", "{{ resources.reveal.url_prefix }}/plugin/notes/notes.js"],
  function (Reveal, RevealNotes) {
    var height = {{ resources.reveal.height or 720 }};
    Reveal.initialize({
      controls: true, progress: true, history: true, center: false,
      transition: "{{ resources.reveal.transition }}", slideNumber: "{{ resources.reveal.number }}",
      plugins: [RevealNotes], width: {{ resources.reveal.width or 1280 }}, height: height
    });
    function fit(section) {
      if (!section || section.classList.contains("stack")) return;
      section.style.zoom = "";
      section.classList.remove("gamekit-scroll");
      var tall = section.scrollHeight;
      if (tall <= height) return;
      var zoom = Math.max(0.75, height / tall);
      section.style.zoom = zoom;
      if (tall * zoom > height) section.classList.add("gamekit-scroll");
    }
    function mathjax(section) {
      if (window.MathJax && MathJax.Hub && MathJax.Hub.getAllJax(section)) {
        MathJax.Hub.Rerender(section);
      }
    }
    Reveal.on("ready", function (event) {
      fit(event.currentSlide);
      // reveal.js draws its arrows in an <aside> (a complementary landmark) inside the page's main
      // landmark; they are buttons, not a complementary region (the buttons keep their names)
      var arrows = document.querySelector(".reveal .controls");
      if (arrows) { arrows.setAttribute("role", "none"); }
    });
    window.addEventListener("load", function () { fit(Reveal.getCurrentSlide()); });
    Reveal.on("slidechanged", function (event) { fit(event.currentSlide); mathjax(event.currentSlide); });
  });
</script>
{% endblock footer_js %}
"""
# Figures carry their smallest font size and dpi (recorded by the slide style), so the size of
# their text on the slide can be measured (scripts/check_slides.py), and their alt text
# (gamekit.views.alt: the output's `gamekit_alt` metadata, else its text/plain when that is not
# matplotlib's "<Figure size ...>"). On pages, the data table behind a figure follows it, folded.
_ALT = """
{%- set plain = output.data.get('text/plain', '') -%}
{%- set plain = plain if plain is string else plain | join('') -%}
{%- set alt = output.metadata.get('gamekit_alt') or ('' if plain.startswith('<') else plain) or 'figure' -%}
"""
_MEASURED_PNG = (
    """
{% block data_png scoped %}
{%- set meta = output.metadata.get('image/png', {}) -%}"""
    + _ALT
    + """<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
{%- if meta.get('width') %} width="{{ meta.get('width') }}"{% endif %}
{%- if meta.get('height') %} height="{{ meta.get('height') }}"{% endif %}
{%- if output.metadata.get('gamekit_min_font_pt') %} class="gamekit-figure"
 data-min-font-pt="{{ output.metadata.get('gamekit_min_font_pt') }}" data-dpi="{{ output.metadata.get('gamekit_dpi') }}"
{%- endif %} alt="{{ alt | escape_html }}">
{%- set table = output.metadata.get('gamekit_alt_table') -%}
{%- if table and resources.get('gamekit_tables') %}
<details class="gamekit-data"><summary>The data behind this figure</summary>
<table><caption>{{ alt | escape_html }}</caption><thead><tr>
{%- for c in table['columns'] %}<th scope="col">{{ c | escape_html }}</th>{% endfor -%}
</tr></thead><tbody>
{%- for row in table['rows'] %}<tr>
{%- for v in row %}<td>{{ v | string | escape_html }}</td>{% endfor %}</tr>{% endfor -%}
</tbody></table></details>
{%- endif %}
</div>
{%- endblock data_png %}
"""
)
# Contrast (WCAG AA, 4.5:1): JupyterLab's prompt and syntax colours on the page are a little too
# light; these darker ones keep their hues. A visible focus ring for keyboard users.
_READABLE_CSS = """<style>
.jp-InputPrompt { color: #1a4f8a !important; opacity: 1 !important; }
.jp-OutputPrompt { color: #9c2d0d !important; opacity: 1 !important; }
.highlight .c, .highlight .c1, .highlight .cm, .highlight .ch, .highlight .cs, .highlight .cp
  { color: #2e6161 !important; }
.highlight .m, .highlight .mi, .highlight .mf, .highlight .mh, .highlight .mo, .highlight .il
  { color: #006000 !important; }
.highlight .o, .highlight .ow { color: #5c4d8f !important; }
.highlight .sd, .highlight .s, .highlight .s1, .highlight .s2, .highlight .sa { color: #a3261f !important; }
.highlight .nd { color: #5c4d8f !important; } .highlight .gp, .highlight .go { color: #555 !important; }
:focus-visible { outline: 3px solid #1a4f8a !important; outline-offset: 2px; }
/* a link in running text is underlined, not told apart by its colour alone (axe: link-in-text-block) */
.jp-RenderedHTMLCommon a:not(.anchor-link), .reveal .slides a:not(.anchor-link)
  { text-decoration: underline !important; text-underline-offset: 0.15em; }
.gamekit-data summary { cursor: pointer; }
</style>"""
# The widget renderer draws a widget's pictures (ipywidgets' Image) without alt text and a slider's
# handle without a name; the caption under the widget carries the alt text of the widget's own
# snapshot, and this gives it to its pictures, and each handle its slider's label.
_WIDGET_ALT_JS = """<script>
(function () {
  function label() {
    document.querySelectorAll(".gamekit-widget-note[data-alt]").forEach(function (note) {
      var child = note.closest(".jp-OutputArea-child"), widget = child && child.previousElementSibling;
      if (!widget) return;
      widget.querySelectorAll("img:not([alt])").forEach(function (img) { img.setAttribute("alt", note.dataset.alt); });
    });
    // a slider's handle is named by the slider's label ("budget")
    document.querySelectorAll(".widget-slider [role=slider]:not([aria-label])").forEach(function (handle) {
      var label = handle.closest(".widget-slider").querySelector(".widget-label");
      if (label && label.textContent.trim()) handle.setAttribute("aria-label", label.textContent.trim());
    });
  }
  new MutationObserver(label).observe(document.documentElement, {childList: true, subtree: true});
  document.addEventListener("DOMContentLoaded", label);
})();
</script>"""
_SLIDE_NUMBER_CSS = """<style>
.reveal .slide-number, .reveal .slide-number a { background-color: #222 !important; color: #fff !important; }
.reveal .slide-number * { color: #fff !important; }
.reveal .controls { color: #1a4f8a !important; }
</style>"""
SLIDES_TEMPLATE = (
    "{%- extends 'index.html.j2' -%}"
    + _NO_MERMAID
    + _MEASURED_PNG
    + "{% block html_head_css %}{{ super() }}"
    + _SLIDE_CSS
    + _READABLE_CSS
    + _SLIDE_NUMBER_CSS
    + _WIDGET_ALT_JS
    + "{% endblock html_head_css %}"
    + _SLIDES_JS
)
# In the HTML page to read, solutions (shown only with --with-solutions, and in the solutions
# set) are folded away (click to open).
_FOLDED_SOLUTIONS = """
{% block any_cell scoped %}
{%- if 'gamekit-solution' in cell.metadata.get('tags', []) -%}
<details class="gamekit-solution" style="margin: 0.5em 0 0.5em 7em">
<summary style="cursor: pointer; font-family: var(--jp-ui-font-family, sans-serif)">Solution (click to open)</summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{% endblock any_cell %}
"""
HTML_TEMPLATE = (
    "{%- extends 'index.html.j2' -%}"
    + _NO_MERMAID
    + _MEASURED_PNG
    + _FOLDED_SOLUTIONS
    + "{% block html_head_css %}{{ super() }}<style>.gamekit-widget-note { font-style: italic; color: #555; }</style>"
    + _READABLE_CSS
    + _WIDGET_ALT_JS
    + "{% endblock html_head_css %}"
)

#: The largest a figure is shown on a slide (CSS pixels of the 1280 x 720 slide): most of the
#: width, and the height that leaves room for a title and a line of text.
FIGURE_BOX = (1180, 470)
#: The smallest text a figure may show on a slide, in pixels of the 1280 x 720 slide.
MIN_TEXT_PX = 14.0
#: A figure must span at least this share of the slide's width or of its height.
MIN_FIGURE_SHARE = 0.5


@dataclass(frozen=True)
class BuildPaths:
    """Where the build puts things: below `root` (`_build/`, which .gitignore ignores).

    `assets_root` lets several build folders share one npm install (the tests use it).
    """

    root: Path
    assets_root: Path | None = None

    @property
    def assets(self) -> Path:
        return self.assets_root if self.assets_root is not None else self.root / "assets"

    @property
    def node_modules(self) -> Path:
        return self.assets / "node_modules"

    @property
    def slides(self) -> Path:
        return self.root / "slides"

    @property
    def assign(self) -> Path:
        return self.root / "assign"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def grades(self) -> Path:
        return self.root / "grades"

    @property
    def html(self) -> Path:
        return self.root / "html"


def default_paths() -> BuildPaths:
    """`_build/` in the current folder (run the commands from the repository's top folder)."""
    return BuildPaths(Path.cwd() / "_build")


# ---------------------------------------------------------------------------------------
# Assets from npm
# ---------------------------------------------------------------------------------------


def assets_installed(paths: BuildPaths | None = None) -> bool:
    """True when every pinned npm package is in `_build/assets/node_modules`."""
    paths = paths or default_paths()
    for name, version in ASSET_PACKAGES.items():
        meta = paths.node_modules / name / "package.json"
        if not meta.is_file() or json.loads(meta.read_text(encoding="utf-8")).get("version") != version:
            return False
    return True


def install_assets(paths: BuildPaths | None = None, force: bool = False) -> bool:
    """Install the pinned npm packages once into `_build/assets/`; False (and a warning) without npm.

    The install goes to a temporary folder first and is then renamed into place, so two
    processes building at once (parallel tests) never see a half-installed folder.
    """
    paths = paths or default_paths()
    if assets_installed(paths) and not force:
        if stat.S_IMODE(paths.assets.stat().st_mode) != 0o755:  # installed by an older build, 0700
            make_readable(paths.assets)
        return True
    npm = shutil.which("npm")
    if npm is None:
        warnings.warn(
            "npm is not installed: slides will load reveal.js, MathJax and the widget renderer "
            "from CDNs and need internet. Install Node.js/npm and run "
            "`python -m gamekit.course assets` for offline slides.",
            RuntimeWarning,
            stacklevel=2,
        )
        return False
    paths.assets.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="assets-", dir=paths.assets.parent))
    (tmp / "package.json").write_text(
        json.dumps(
            {
                "name": "gamekit-course-assets",
                "private": True,
                "description": "built by python -m gamekit.course assets",
                "dependencies": ASSET_PACKAGES,
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    cmd = [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"]
    print(
        f"installing {', '.join(ASSET_PACKAGES)} from npm into {paths.assets} (about a minute) ...",
        file=sys.stderr,
        flush=True,
    )
    try:
        with _ticking("npm install"):
            done = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError("npm install did not finish in 10 minutes (is the npm registry reachable?)") from None
    if done.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"npm install of {', '.join(ASSET_PACKAGES)} failed:\n{done.stderr[-2000:]}")
    if paths.assets.exists():
        if assets_installed(paths) and not force:  # someone else finished first
            shutil.rmtree(tmp, ignore_errors=True)
            return True
        shutil.rmtree(paths.assets)
    make_readable(tmp)
    try:
        os.replace(tmp, paths.assets)
    except OSError:  # lost a race to a parallel install of the same versions
        shutil.rmtree(tmp, ignore_errors=True)
    return assets_installed(paths)


class _ticking:
    """Print "... still running (20 s)" every `every` seconds while a long step runs."""

    def __init__(self, what: str, every: float = 10.0):
        self.what, self.every = what, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        start = time.monotonic()
        while not self._stop.wait(self.every):
            print(f"      {self.what}: still running ({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)

    def __enter__(self) -> _ticking:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def copy_lib(paths: BuildPaths, target: Path) -> Path:
    """Copy the needed asset files into `target/lib` (once) and return that folder."""
    lib = target / "lib"
    stamp = lib / "VERSIONS.json"
    wanted = json.dumps({"packages": ASSET_PACKAGES, "files": LIB_FILES}, sort_keys=True)
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:
        return lib
    tmp = Path(tempfile.mkdtemp(prefix="lib-", dir=target))
    for src, dst in LIB_FILES.items():
        src_path, dst_path = paths.node_modules / src, tmp / dst
        dst_path.parent.mkdir(parents=True, exist_ok=True)
        if src_path.is_dir():
            shutil.copytree(src_path, dst_path, ignore=shutil.ignore_patterns("*.map", "*.esm.js"))
        else:
            shutil.copy2(src_path, dst_path)
    (tmp / "VERSIONS.json").write_text(wanted, encoding="utf-8")
    make_readable(tmp)
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:  # a parallel build was faster
        shutil.rmtree(tmp, ignore_errors=True)
        return lib
    if lib.exists():
        shutil.rmtree(lib, ignore_errors=True)
    try:
        os.replace(tmp, lib)
    except OSError:  # a parallel build put an identical lib in place first
        shutil.rmtree(tmp, ignore_errors=True)
    return lib


def asset_config(local: bool, prefix: str = "lib") -> dict:
    """nbconvert exporter settings: every script and style sheet from `prefix/` (or the CDN)."""
    common = {
        "reveal_theme": THEME,
        "reveal_width": str(SLIDE_WIDTH),
        "reveal_height": str(SLIDE_HEIGHT),
        "reveal_number": "c/t",
    }
    if not local:
        return common
    return {
        **common,
        "reveal_url_prefix": f"{prefix}/reveal.js",
        "require_js_url": f"{prefix}/require.js",
        "jquery_url": f"{prefix}/jquery.min.js",
        "mathjax_url": f"{prefix}/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe",
        "widget_renderer_url": f"{prefix}/html-manager/embed-amd.js",
    }


# A URL that the page would load (script, style sheet, image, font, module), as opposed to a
# link the reader may click.
_URL = r"(?P<url>(?:https?:)?//[^\"'\s)]+)"
_RESOURCE_PATTERNS = [
    re.compile(p, re.I)
    for p in [
        r"<script\b[^>]*\bsrc\s*=\s*[\"']" + _URL,
        r"<link\b[^>]*\bhref\s*=\s*[\"']" + _URL,
        r"<img\b[^>]*\bsrc\s*=\s*[\"']" + _URL,
        r"url\(\s*[\"']?" + _URL,
        r"@import\s+[\"']" + _URL,
        r"\bfrom\s+[\"']" + _URL,
        r"[\"'](?P<url>https?://[^\"'\s]*\.(?:m?js|css)(?:\?[^\"'\s]*)?)[\"']",
    ]
]


def remote_resources(html: str) -> list[str]:
    """Every network URL the page would load by itself, once each (empty for an offline page).

    Links the reader may click (`<a href=...>`) are not resources and are not reported.
    """
    found: dict[str, None] = {}
    for pattern in _RESOURCE_PATTERNS:
        for match in pattern.finditer(html):
            found.setdefault(match.group("url"))
    return list(found)


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


# Splitting slides that would not fit. Authors group cells into slides by hand; a slide with
# several code cells and figures can end up far taller than the screen. Before export, the
# build estimates each cell's rendered height and starts a new sub-slide where a slide would
# exceed SLIDE_BUDGET pixels (the start-up script shrinks what is a little too tall).
SLIDE_BUDGET = 860
_CHARS_PER_LINE = 105


def _text_height(text: str, line_px: int, chars: int = _CHARS_PER_LINE) -> int:
    return sum(max(1, -(-len(line) // chars)) for line in text.splitlines() or [""]) * line_px


def _png_height(data: str) -> int:
    import base64
    import struct

    head = base64.b64decode(data[:64])
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return 300
    width, height = struct.unpack(">II", head[16:24])
    shown = height * min(1.0, (SLIDE_WIDTH - 80) / max(width, 1))
    return int(min(shown, 460))


def _output_height(out) -> int:
    if out.get("output_type") == "stream":
        return _text_height(out.get("text", ""), 20)
    data = out.get("data", {})
    if "application/vnd.jupyter.widget-view+json" in data:
        return 380
    if "image/png" in data:
        shown = out.get("metadata", {}).get("image/png", {}).get("height")
        return (int(shown) if shown else _png_height(data["image/png"])) + 10
    if "text/html" in data:
        html = data["text/html"]
        rows = html.count("<tr")
        return 40 + 27 * rows if rows else 20 + 19 * html.count("\n")
    return _text_height(str(data.get("text/plain", "")), 20)


def cell_height(cell) -> int:
    """A rough estimate of a cell's height on a slide, in pixels of the 1280 x 720 slide."""
    if cell.cell_type == "markdown":
        total = 0
        for line in cell.source.splitlines():
            total += 56 if line.startswith("#") else 28 if line.startswith("|") else _text_height(line, 27)
        return total + 16
    if cell.cell_type != "code":
        return 0
    return 24 + _text_height(cell.source, 21) + sum(_output_height(o) for o in cell.get("outputs", []))


def split_long_slides(nb: nbformat.NotebookNode, budget: int = SLIDE_BUDGET) -> nbformat.NotebookNode:
    """A copy of `nb` in which a cell that would push its slide past `budget` starts a sub-slide."""
    out = copy.deepcopy(nb)
    used = 0
    for cell in out.cells:
        show = cell.metadata.setdefault("slideshow", {})
        kind = show.get("slide_type", "-")
        if kind in ("skip", "notes"):
            continue
        height = cell_height(cell)
        if kind in ("slide", "subslide"):
            used = height
        elif used and used + height > budget:
            show["slide_type"] = "subslide"
            used = height
        else:
            used += height
    return out


#: A lesson may have at most one slide page (slide or sub-slide) per this many minutes.
MINUTES_PER_SLIDE = 1.5


def lesson_minutes(nb: nbformat.NotebookNode) -> float:
    """The lesson's length in minutes, from its metadata `"course": {"minutes": N}`.

    Raises ValueError when it is missing or not a positive number.
    """
    minutes = nb.metadata.get("course", {}).get("minutes")
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not minutes > 0:
        raise ValueError(
            f'the notebook metadata needs "course": {{"minutes": N}} with N > 0 (the lesson\'s length), got {minutes!r}'
        )
    return float(minutes)


def slide_budget(nb: nbformat.NotebookNode) -> int:
    """How many slide pages the lesson may have: one per `MINUTES_PER_SLIDE` minutes of its length."""
    return int(lesson_minutes(nb) // MINUTES_PER_SLIDE)


def slide_pages(deck: nbformat.NotebookNode) -> int:
    """The number of pages (slides and sub-slides) the reveal.js export makes of `deck`.

    Counted as nbconvert's slide exporter does: the first cell that is neither `skip` nor
    `notes` opens a slide, and every later `slide` or `subslide` cell opens a page; the build's
    own split of over-tall slides (`split_long_slides`) is applied first, as `slides_html` does.
    """
    pages, started = 0, False
    for cell in split_long_slides(deck).cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if kind in ("skip", "notes"):
            continue
        if not started or kind in ("slide", "subslide"):
            pages += 1
            started = True
    return pages


def slides_html(nb: nbformat.NotebookNode, local: bool = True) -> str:
    """An executed notebook as reveal.js slides (HTML text) whose assets live in `lib/`."""
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(raw_template=SLIDES_TEMPLATE, **asset_config(local))
    body, _ = exporter.from_notebook_node(split_long_slides(figures_as_png(nb)))
    return body


def page_html(nb: nbformat.NotebookNode, local: bool = True) -> str:
    """An executed notebook as one HTML page (JupyterLab look) whose assets live in `lib/`.

    A widget that left a picture of itself is shown as that picture, with its alt text: on a page
    to read or print its controls would do nothing, and the picture says what it showed.
    """
    from nbconvert import HTMLExporter

    config = {k: v for k, v in asset_config(local).items() if not k.startswith("reveal")}
    exporter = HTMLExporter(raw_template=HTML_TEMPLATE, **config)
    body, _ = exporter.from_notebook_node(widget_pictures(figures_as_png(nb)), resources={"gamekit_tables": True})
    return body


def figures_as_png(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` whose figures are shown from their PNG output, not their `<img>` HTML.

    In a kernel a figure also carries an `<img alt>` HTML form (`gamekit.views.alt`: JupyterLab
    shows PNG outputs without alt text); the build shows the PNG itself, with the alt text from the
    metadata, its measured font size and, on pages, the folded data table.
    """
    out = copy.deepcopy(nb)
    for cell in out.cells:
        for o in cell.get("outputs", []):
            data, meta = o.get("data", {}), o.get("metadata", {})
            page = data.get("text/html", "")
            page = page if isinstance(page, str) else "".join(page)
            if "image/png" in data and "gamekit_alt" in meta and page.startswith('<img src="data:image/png;base64,'):
                del data["text/html"]
    return out


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
    script (`_WIDGET_ALT_JS`) gives to the pictures the widget renderer draws without one."""
    text = (
        f"A picture of the widget, not the widget itself: to play with it, open notebook "
        f"{chapter} in JupyterLab and run its cells."
    )
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


def _png_size(data: str) -> tuple[int, int] | None:
    import base64
    import struct

    head = base64.b64decode(data[:64])
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def fit_figures(nb: nbformat.NotebookNode, box: tuple[int, int] = FIGURE_BOX) -> nbformat.NotebookNode:
    """A copy of `nb` in which every figure drawn with the slide style is shown as large as fits `box`.

    Figures are rendered at SLIDE_DPI, sharp enough to be shown larger than in a notebook; the
    display size (the image's width and height attributes) keeps the aspect ratio.
    """
    out = copy.deepcopy(nb)
    for cell in out.cells:
        for o in cell.get("outputs", []):
            png = o.get("data", {}).get("image/png")
            if not png or not o.get("metadata", {}).get("gamekit_dpi"):
                continue
            size = _png_size(png)
            if size is None:
                continue
            scale = min(box[0] / size[0], box[1] / size[1])
            meta = dict(o.metadata.get("image/png", {}))
            meta["width"], meta["height"] = round(size[0] * scale), round(size[1] * scale)
            o.metadata["image/png"] = meta
    return out


def figure_text_px(pt: float, dpi: float, natural_width: float, shown_width: float) -> float:
    """Height in slide pixels of `pt`-point text in a figure rendered at `dpi` and shown scaled."""
    return pt * dpi / 72 * shown_width / natural_width


def notebook_figure_report(nb: nbformat.NotebookNode, box: tuple[int, int] = FIGURE_BOX) -> list[dict]:
    """Each figure of a notebook executed with the slide style, as the slides will show it: its
    cell, its size on the slide and its smallest text in slide pixels (`ok` False when too small).
    Cells that are not on the slides (slide_type `skip` or `notes`: set-up, optional parts) are left out."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.metadata.get("slideshow", {}).get("slide_type") in ("skip", "notes"):
            continue
        for o in cell.get("outputs", []):
            png, meta = o.get("data", {}).get("image/png"), o.get("metadata", {})
            size = _png_size(png) if png else None
            if size is None or not meta.get("gamekit_min_font_pt"):
                continue
            scale = min(box[0] / size[0], box[1] / size[1])
            width, height = size[0] * scale, size[1] * scale
            px = figure_text_px(meta["gamekit_min_font_pt"], meta["gamekit_dpi"], size[0], width)
            share = max(width / SLIDE_WIDTH, height / SLIDE_HEIGHT)
            found.append(
                {
                    "cell": i,
                    "code": cell.source.strip().splitlines()[0][:60] if cell.source.strip() else "",
                    "min_font_pt": meta["gamekit_min_font_pt"],
                    "min_text_px": round(px, 1),
                    "share": round(share, 2),
                    "ok": px >= MIN_TEXT_PX and share >= MIN_FIGURE_SHARE,
                }
            )
    return found


_FIGURE = re.compile(r"<img\b[^>]*class=\"gamekit-figure\"[^>]*>", re.S)


def figure_report(page: str) -> list[dict]:
    """Each measured figure of a built deck, read from the HTML: its size on the slide and the
    height of its smallest text in slide pixels, with `ok` False when either is too small.

    This reads the sizes the build chose; scripts/check_slides.py measures the same in a browser.
    """
    found = []
    for tag in _FIGURE.findall(page):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
        size = _png_size(re.search(r"base64,([A-Za-z0-9+/=]{64})", tag).group(1))  # type: ignore[union-attr]
        if size is None:
            continue
        width = float(attrs.get("width", size[0]))
        height = float(attrs.get("height", size[1]))
        px = figure_text_px(float(attrs["data-min-font-pt"]), float(attrs["data-dpi"]), size[0], width)
        share = max(width / SLIDE_WIDTH, height / SLIDE_HEIGHT)
        found.append(
            {
                "width": width,
                "height": height,
                "min_text_px": round(px, 1),
                "share": round(share, 2),
                "ok": px >= MIN_TEXT_PX and share >= MIN_FIGURE_SHARE,
            }
        )
    return found


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


def slide_deck(nb: nbformat.NotebookNode, chapter: str, with_solutions: bool = False) -> nbformat.NotebookNode:
    """An executed master, ready to export as slides (classroom view, figures fitted to the slide)."""
    return fit_figures(classroom_notebook(nb, chapter, with_solutions=with_solutions))


def build_slides(
    notebooks: Iterable[Path],
    paths: BuildPaths | None = None,
    offline: bool | None = None,
    html: bool = False,
    with_solutions: bool = False,
) -> list[Path]:
    """Execute each notebook with the slide style and write its offline slides (and, with
    `html=True`, its HTML page). Says which notebook runs and how long it took."""
    paths = paths or default_paths()
    notebooks = list(notebooks)
    written = []
    for k, path in enumerate(notebooks, 1):
        start = _progress(k, len(notebooks), f"executing {path.name} for slides")
        nb = execute_notebook(path, setup=SLIDE_STYLE)
        deck = slide_deck(nb, path.stem, with_solutions)
        written.append(write_slides(deck, path.stem, paths, offline))
        if html:
            page = classroom_notebook(nb, path.stem, with_solutions=with_solutions, keep_notes=False)
            written.append(write_html(page, path.stem, paths, offline))
        _done(start, written[-1])
    make_readable(paths.slides)
    return written


def build_html(
    notebooks: Iterable[Path],
    paths: BuildPaths | None = None,
    offline: bool | None = None,
    with_solutions: bool = False,
) -> list[Path]:
    """Execute each notebook and write it as one HTML page to read or print (no speaker notes)."""
    paths = paths or default_paths()
    notebooks = list(notebooks)
    written = []
    for k, path in enumerate(notebooks, 1):
        start = _progress(k, len(notebooks), f"executing {path.name} for a page")
        page = classroom_notebook(execute_notebook(path), path.stem, with_solutions=with_solutions, keep_notes=False)
        written.append(write_html(page, path.stem, paths, offline))
        _done(start, written[-1])
    make_readable(paths.html)
    return written


def build_solutions(
    notebooks: Iterable[Path], paths: BuildPaths | None = None, offline: bool | None = None
) -> list[Path]:
    """The self-study set in `_build/solutions/`: each master executed without speaker notes and
    tests, solutions shown, as .ipynb (outputs kept) and .html (solutions folded, click to open)."""
    paths = paths or default_paths()
    notebooks = list(notebooks)
    written = []
    for k, path in enumerate(notebooks, 1):
        start = _progress(k, len(notebooks), f"executing {path.name} for the solutions")
        nb = execute_notebook(path)
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
        written.append(target)
        local = _prepare_offline(paths, paths.solutions, offline)
        html_path = paths.solutions / f"{path.stem}-solutions.html"
        html_path.write_text(page_html(page, local), encoding="utf-8")
        written.append(html_path)
        _done(start, html_path)
    make_readable(paths.solutions)
    return written
