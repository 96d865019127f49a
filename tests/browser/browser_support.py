"""Shared pieces of the browser tests: Debian's Chromium driven by Playwright, and JupyterLab on loopback.

Playwright's own browser download does not work here, so the system Chromium is used
(`/usr/bin/chromium`, or $GAMEKIT_CHROMIUM). Without it, or without playwright, every browser
test is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = Path(os.environ.get("GAMEKIT_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL_PREFIXES = ("file://", "data:", "blob:", "about:", "http://127.0.0.1", "ws://127.0.0.1")


def skip_reason() -> str | None:
    """Why the browser tests cannot run here (None when they can)."""
    if not CHROMIUM.exists():
        return (
            f"Chromium not found at {CHROMIUM} (install the Debian package: apt-get install chromium; "
            f".ci/run does that)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[browser]')"
    return None


def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@contextlib.contextmanager
def chromium():
    """A headless Chromium (the Debian one) for one test module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=60_000)
        try:
            yield browser
        finally:
            browser.close()


class PageLog:
    """Blocks every request that would leave the machine, and records errors and blocked URLs."""

    def __init__(self, page):
        self.blocked: list[str] = []
        self.errors: list[str] = []
        page.route("**/*", self._route)
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(f"console: {msg.text}"))
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("requestfailed", lambda req: self.errors.append(f"request failed: {req.url} ({req.failure})"))

    def _route(self, route):
        url = route.request.url
        if url.startswith(LOCAL_PREFIXES):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_settings(folder: Path) -> None:
    """JupyterLab settings for a quiet, deterministic test session."""
    settings = {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
            "fetchNews": "false",
            "checkForUpdates": False,
        },
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    }
    for name, value in settings.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value), encoding="utf-8")


@contextlib.contextmanager
def jupyter_lab(workdir: Path, timeout: float = 90):
    """Start JupyterLab on 127.0.0.1 in `workdir` (which holds notebooks/ and data/); yield (base url, token).

    The server always gets terminated (then killed), and a server that does not come up
    within `timeout` seconds fails the test with its log.
    """
    token = secrets.token_hex(16)
    port = free_port()
    _write_settings(workdir / ".lab-settings")
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}  # the kernels must draw inline figures
    env.update(
        JUPYTERLAB_SETTINGS_DIR=str(workdir / ".lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(workdir / ".lab-workspaces"),
        JUPYTER_RUNTIME_DIR=str(workdir / ".runtime"),
    )
    log = open(workdir / "jupyter-lab.log", "w")  # noqa: SIM115 - the server writes to it until it stops
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={workdir}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.extension_manager=readonly",
        "--LabApp.news_url=None",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI containers run as root
        cmd.append("--allow-root")
    proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited with {proc.returncode}:\n{(workdir / 'jupyter-lab.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not start in {timeout} s:\n{(workdir / 'jupyter-lab.log').read_text()}")
            time.sleep(0.5)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


def copy_course(target: Path) -> Path:
    """A throw-away copy of notebooks/ and data/ (JupyterLab may write checkpoints and outputs)."""
    for name in ("notebooks", "data"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return target


# --- axe-core: automated accessibility checks (WCAG 2.1 A and AA) -------------------------------

#: axe-core from npm, installed once into _build/axe/ (like the slides' assets).
AXE_VERSION = "4.10.3"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
IMPACTS = ("critical", "serious", "moderate", "minor")


def axe_source() -> str | None:
    """The text of axe.min.js (npm-installed once into _build/axe/), or None without npm."""
    folder = ROOT / "_build" / "axe"
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    meta = script.parent / "package.json"
    if not (script.is_file() and json.loads(meta.read_text(encoding="utf-8")).get("version") == AXE_VERSION):
        npm = shutil.which("npm")
        if npm is None:
            return None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "gamekit-axe", "private": true}', encoding="utf-8")
        subprocess.run(
            [
                npm,
                "install",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--loglevel=error",
                f"axe-core@{AXE_VERSION}",
            ],
            cwd=folder,
            check=True,
            capture_output=True,
            timeout=300,
        )
    return script.read_text(encoding="utf-8")


def run_axe(page, source: str, context: str | dict | None = None) -> list[dict]:
    """Run axe-core (WCAG 2.1 A/AA rules) on the page as it is now; returns its violations
    (each with id, impact, help and the number of nodes). `context`: a selector (its first match),
    or axe's own context object such as {"include": [".jp-OutputArea-output"]} (every match)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=source)
    found = page.evaluate(
        """async ([tags, context]) => {
            const where = !context ? document : typeof context === 'string' ? document.querySelector(context) : context;
            const r = await axe.run(where,
                                    {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
                                           where: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
        }""",
        [AXE_TAGS, context],
    )
    return list(found)


def impact_counts(violations: list[dict]) -> dict[str, int]:
    """Violations by impact (rules, not nodes): {"critical": 0, "serious": 1, ...}."""
    return {impact: sum(1 for v in violations if v["impact"] == impact) for impact in IMPACTS}


def axe_line(name: str, violations: list[dict]) -> str:
    """One row of the axe table: the page and its violations by impact, with the rule ids."""
    counts = impact_counts(violations)
    rules = ", ".join(f"{v['id']} ({v['impact']}, {v['nodes']} nodes)" for v in violations)
    return f"| {name} | " + " | ".join(str(counts[i]) for i in IMPACTS) + f" | {rules or '-'} |"
