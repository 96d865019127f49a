"""The slides' scripts and styles from npm, for slides that work with no network at all.

nbconvert loads reveal.js, RequireJS, jQuery, MathJax and the widget renderer from CDNs by
default; here they come from the npm registry, installed once into `_build/assets/`
(`install_assets`), and a copy of the few files needed goes next to the slides
(`copy_lib`: `_build/slides/lib/`). The exporters reference them by relative paths
(`asset_config`), so a built folder works from a USB stick (file://) or a loopback server, and
`remote_resources` lists what a page would still load from the network (nothing, offline).
Without npm the slides fall back to the CDN, with a clear warning.
"""

from __future__ import annotations

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
from pathlib import Path

from .buildpaths import BuildPaths, default_paths
from .slidefit import SLIDE_HEIGHT, SLIDE_WIDTH
from .tidy import make_readable

__all__ = [
    "ASSET_PACKAGES",
    "LIB_FILES",
    "THEME",
    "asset_config",
    "assets_installed",
    "copy_lib",
    "install_assets",
    "remote_resources",
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
