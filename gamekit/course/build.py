"""Build the course for the classroom: offline slides, student handouts, executed HTML.

Three products, each from the notebooks in `notebooks/`, each written below `_build/`:

- slides (`_build/slides/NN-title.slides.html`): the notebook executed (figures and widget
  state kept) and exported to reveal.js. nbconvert loads reveal.js, RequireJS, jQuery,
  MathJax and the widget renderer from CDNs by default; here they come from the npm
  registry, installed once into `_build/assets/`, and a copy of the few files needed goes
  next to the slides (`_build/slides/lib/`). The HTML references them by relative paths, so
  the folder works from a USB stick (file://) or a loopback server with no network at all.
  (Font Awesome, which nbconvert also offers, is used by none of our templates; the widget
  renderer brings its own icon fonts.) A slide whose cells would not fit the screen is
  split into sub-slides, and what is still a little too tall is shrunk to fit.
- handouts (`_build/handouts/NN-title.ipynb`): every solution cell replaced by a stub,
  outputs cleared, everything else unchanged.
- html (`_build/html/NN-title.html`): the executed notebook as one page to read without
  Jupyter, with the same local assets.

Without npm the slides fall back to the CDN, with a clear warning.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .execute import execute_notebook
from .nbcheck import exercises, is_solution

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
.reveal .jp-OutputArea-output img { max-height: 460px; max-width: 100%; width: auto; height: auto; }
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
    Reveal.on("ready", function (event) { fit(event.currentSlide); });
    window.addEventListener("load", function () { fit(Reveal.getCurrentSlide()); });
    Reveal.on("slidechanged", function (event) { fit(event.currentSlide); mathjax(event.currentSlide); });
  });
</script>
{% endblock footer_js %}
"""
SLIDES_TEMPLATE = (
    "{%- extends 'index.html.j2' -%}"
    + _NO_MERMAID
    + "{% block html_head_css %}{{ super() }}"
    + _SLIDE_CSS
    + "{% endblock html_head_css %}"
    + _SLIDES_JS
)
# In the HTML page to read, solutions are folded away (click to open), as in JupyterLab.
_FOLDED_SOLUTIONS = """
{% block any_cell scoped %}
{%- if cell.cell_type == 'code' and 'solution' in cell.metadata.get('tags', []) -%}
<details class="gamekit-solution" style="margin: 0.5em 0 0.5em 7em"><summary style="cursor: pointer; font-family: var(--jp-ui-font-family, sans-serif)">Solution
(click to open)</summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{% endblock any_cell %}
"""
HTML_TEMPLATE = "{%- extends 'index.html.j2' -%}" + _NO_MERMAID + _FOLDED_SOLUTIONS

HANDOUT_STUB = "# Your solution here"


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
    def handouts(self) -> Path:
        return self.root / "handouts"

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
    try:
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
    try:
        os.replace(tmp, paths.assets)
    except OSError:  # lost a race to a parallel install of the same versions
        shutil.rmtree(tmp, ignore_errors=True)
    return assets_installed(paths)


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
        return _png_height(data["image/png"]) + 10
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


def slides_html(nb: nbformat.NotebookNode, local: bool = True) -> str:
    """An executed notebook as reveal.js slides (HTML text) whose assets live in `lib/`."""
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(raw_template=SLIDES_TEMPLATE, **asset_config(local))
    body, _ = exporter.from_notebook_node(split_long_slides(nb))
    return body


def page_html(nb: nbformat.NotebookNode, local: bool = True) -> str:
    """An executed notebook as one HTML page (JupyterLab look) whose assets live in `lib/`."""
    from nbconvert import HTMLExporter

    config = {k: v for k, v in asset_config(local).items() if not k.startswith("reveal")}
    exporter = HTMLExporter(raw_template=HTML_TEMPLATE, **config)
    body, _ = exporter.from_notebook_node(nb)
    return body


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
    return out


def write_html(
    nb: nbformat.NotebookNode, name: str, paths: BuildPaths | None = None, offline: bool | None = None
) -> Path:
    """Write an executed notebook as `_build/html/<name>.html` (assets as for the slides)."""
    paths = paths or default_paths()
    local = _prepare_offline(paths, paths.html, offline)
    out = paths.html / f"{name}.html"
    out.write_text(page_html(nb, local), encoding="utf-8")
    return out


# ---------------------------------------------------------------------------------------
# Handouts
# ---------------------------------------------------------------------------------------


def answer_names(source: str) -> list[str]:
    """Names starting with `answer` that the code assigns at top level, in order of first assignment."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(f"solution cell is not valid Python ({exc.msg}, line {exc.lineno})") from exc
    names: list[str] = []

    def add(target: ast.AST) -> None:
        if isinstance(target, ast.Name) and target.id.startswith("answer") and target.id not in names:
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                add(elt)

    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                add(target)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            add(node.target)
    return names


def stub_source(solution: str) -> str:
    """The handout version of a solution cell: a prompt plus `answer_N_M = ...` placeholders."""
    return "\n".join([HANDOUT_STUB] + [f"{name} = ..." for name in answer_names(solution)])


def handout_problems(nb: nbformat.NotebookNode) -> list[str]:
    """Exercises without a tagged solution and solutions without an exercise (empty when paired)."""
    problems = []
    pairs = exercises(nb)
    for label, i, sol in pairs:
        if sol is None:
            problems.append(f"Exercise {label} (cell {i}) has no tagged solution as its next code cell")
    paired = {sol for _, _, sol in pairs if sol is not None}
    for i, cell in enumerate(nb.cells):
        if is_solution(cell) and i not in paired:
            problems.append(f"cell {i}: solution cell with no exercise before it")
    return problems


def make_handout(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The student copy of `nb`: solution cells stubbed and shown, outputs cleared, the rest unchanged.

    Raises ValueError if an exercise has no tagged solution or a solution no exercise,
    because a handout built from such a notebook would silently leak or lose an answer.
    """
    problems = handout_problems(nb)
    if problems:
        raise ValueError("cannot build a handout: " + "; ".join(problems))
    out = copy.deepcopy(nb)
    out.metadata.pop("widgets", None)
    for cell in out.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        cell.execution_count = None
        if is_solution(cell):
            cell.source = stub_source(cell.source)
            jupyter = cell.metadata.get("jupyter", {})
            jupyter.pop("source_hidden", None)
            jupyter.pop("outputs_hidden", None)
            if jupyter:
                cell.metadata["jupyter"] = jupyter
            else:
                cell.metadata.pop("jupyter", None)
    return out


# ---------------------------------------------------------------------------------------
# Whole-course commands
# ---------------------------------------------------------------------------------------


def course_notebooks(names: Iterable[str | Path] = ()) -> list[Path]:
    """The notebooks to build: the given files (or NN prefixes like `03`), else all of `notebooks/`."""
    folder = Path.cwd() / "notebooks"
    chosen = []
    for name in names:
        path = Path(name)
        if path.is_file():
            chosen.append(path)
            continue
        matches = sorted(folder.glob(f"{name}*.ipynb")) if re.fullmatch(r"\d\d", str(name)) else []
        if len(matches) != 1:
            raise ValueError(
                f"no notebook {name!r}: give a path to an .ipynb file or a two-digit "
                f"chapter number (found in {folder}: {[p.name for p in sorted(folder.glob('*.ipynb'))]})"
            )
        chosen.append(matches[0])
    if not chosen:
        chosen = sorted(folder.glob("[0-9][0-9]-*.ipynb"))
        if not chosen:
            raise ValueError(f"no notebooks in {folder}: run this from the repository's top folder")
    return chosen


def build_slides(
    notebooks: Iterable[Path], paths: BuildPaths | None = None, offline: bool | None = None, html: bool = False
) -> list[Path]:
    """Execute each notebook and write its offline slides (and, with `html=True`, its HTML page)."""
    paths = paths or default_paths()
    written = []
    for path in notebooks:
        print(f"executing {path.name} ...", file=sys.stderr, flush=True)
        nb = execute_notebook(path)
        written.append(write_slides(nb, path.stem, paths, offline))
        if html:
            written.append(write_html(nb, path.stem, paths, offline))
    return written


def build_html(notebooks: Iterable[Path], paths: BuildPaths | None = None, offline: bool | None = None) -> list[Path]:
    """Execute each notebook and write it as one HTML page to read without Jupyter."""
    paths = paths or default_paths()
    written = []
    for path in notebooks:
        print(f"executing {path.name} ...", file=sys.stderr, flush=True)
        written.append(write_html(execute_notebook(path), path.stem, paths, offline))
    return written


def build_handouts(notebooks: Iterable[Path], paths: BuildPaths | None = None) -> list[Path]:
    """Write the student handout of each notebook to `_build/handouts/`."""
    paths = paths or default_paths()
    paths.handouts.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks:
        out = paths.handouts / path.name
        nbformat.write(make_handout(nbformat.read(path, as_version=4)), out)
        written.append(out)
    return written
