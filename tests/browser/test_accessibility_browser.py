"""Accessibility in a real browser: axe-core (WCAG 2.1 A/AA) on the built pages, slide decks and the
tournament's leaderboard, and the leaderboard read from the back of the room.

- axe-core (from npm, `browser_support.axe_source`) runs in Chromium on every page and deck the
  course build wrote (the notebook tests' `test-artifacts/build/`, else the sample notebook built
  here) and on a tournament leaderboard: no violation of impact "serious" or "critical"; the
  counts of the rest are printed and written to test-artifacts/browser/axe.md.
- The leaderboard on a 1280 x 720 projector: every piece of text (tables, chart labels, the
  replay's board and buttons) at least 14 px; the replay is played with the keyboard alone and
  its live region announces each move.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
import warnings
from pathlib import Path

import browser_support as bs
import pytest

from gamekit.course import build

pytestmark = [pytest.mark.browser, pytest.mark.skipif(bs.skip_reason() is not None, reason=str(bs.skip_reason()))]

AGENTS = bs.ROOT / "tests" / "tournament_agents"

# The smallest rendered text of the page: every element with text of its own, and every SVG text.
SMALLEST_TEXT = """() => {
    const found = [];
    for (const el of document.querySelectorAll('body *')) {
        if (['SCRIPT', 'STYLE', 'OPTION'].includes(el.tagName)) continue;
        const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
        if (!own) continue;
        const box = el.getBoundingClientRect();
        if (!box.width || !box.height) continue;
        const px = parseFloat(getComputedStyle(el).fontSize);
        found.push([px, el.tagName + ': ' + el.textContent.trim().slice(0, 40)]);
    }
    found.sort((a, b) => a[0] - b[0]);
    return found.slice(0, 5);
}"""


@pytest.fixture(scope="module")
def browser():
    with bs.chromium() as b:
        yield b


@pytest.fixture(scope="module")
def axe():
    source = bs.axe_source()
    if source is None:
        pytest.skip("npm is not installed, so axe-core cannot be installed")
    return source


@pytest.fixture(scope="module")
def leaderboard(tmp_path_factory) -> Path:
    """A small TicTacToe round robin of the sample agents (trusted, so in-process) and its page."""
    from gamekit.tournament.html import write_report
    from gamekit.tournament.results import Results
    from gamekit.tournament.runner import Tournament

    folder = tmp_path_factory.mktemp("board")
    agents = [AGENTS / "first_free.py", AGENTS / "random_mover.py", AGENTS / "perfect.py"]
    t = Tournament(folder / "t.sqlite", agents, game="tictactoe", starts=2, seed=1, sandbox=False)
    t.run(workers=1)
    page = write_report(Results(t), folder / "report", reps=50)
    shutil.copy(page, bs.artifacts() / "leaderboard.html")
    return page


def test_the_leaderboard_reads_from_the_back_of_the_room(browser, leaderboard):
    context = browser.new_context(viewport={"width": build.SLIDE_WIDTH, "height": build.SLIDE_HEIGHT})
    page = context.new_page()
    log = bs.PageLog(page)
    page.goto(leaderboard.as_uri())
    smallest = page.evaluate(SMALLEST_TEXT)
    assert smallest and smallest[0][0] >= 14, f"text under 14 px on the leaderboard: {smallest}"
    # display names only (no file names), readable game ids
    text = page.inner_text("body")
    assert "first_free" not in text and "perfect~" not in page.inner_html("select")
    assert "perfect (solver) vs first legal move, start 1" in page.inner_html("select")
    # the replay with the keyboard alone: focus the picker, choose, Tab to "next", Enter
    page.focus("select")
    page.keyboard.press("ArrowDown")
    status = page.locator("[data-role=step]")
    assert status.get_attribute("aria-live") == "polite"
    page.keyboard.press("Tab")  # first
    page.keyboard.press("Tab")  # back
    page.keyboard.press("Tab")  # next
    assert page.evaluate("document.activeElement.dataset.role") == "next"
    page.keyboard.press("Enter")
    assert status.inner_text().startswith("move 1 of ")
    page.keyboard.press("Enter")
    assert status.inner_text().startswith("move 2 of ")
    page.screenshot(path=str(bs.artifacts() / "leaderboard.png"), full_page=True)
    assert log.errors == [] and log.blocked == []
    context.close()


def _built_pages(tmp_root: Path) -> list[Path]:
    """Every deck and page the notebook tests built; else the sample notebook's, built here."""
    built = bs.ROOT / "test-artifacts" / "build"
    found = sorted(built.glob("slides/*.slides.html")) + sorted(built.glob("html/*.html"))
    if found:
        return found
    import course_sample

    paths = build.BuildPaths(tmp_root / "build", assets_root=bs.ROOT / "_build" / "assets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if not build.install_assets(paths):
            pytest.skip("npm is not installed, so offline slides cannot be built")
    return build.build_slides([course_sample.write_sample(tmp_root)], paths, html=True)


# Show every slide at once (a screen reader reaches them all; axe skips what is not displayed).
ALL_SLIDES = ".reveal .slides section { display: block !important; visibility: visible !important; }"
# reveal.js hides the slides not on screen from assistive technology; axe must see every slide.
SLIDES_NOT_HIDDEN = """() => document.querySelectorAll('.reveal .slides section').forEach(s => {
    s.removeAttribute('aria-hidden'); s.removeAttribute('hidden'); s.removeAttribute('inert'); })"""


# MathJax 2 typesets in its own queue, and its assistive-MathML extension adds what a screen reader
# reads at the end of each typeset: a callback queued behind them runs once both are done.
MATHJAX_QUEUE_EMPTY = """async () => {
    if (!document.querySelector('script[src*="MathJax.js"]')) return 'no MathJax';
    while (!(window.MathJax && MathJax.Hub && MathJax.Hub.Queue)) await new Promise(r => setTimeout(r, 100));
    await new Promise(done => MathJax.Hub.Queue(done));
    return 'done';
}"""


def mathjax_done(page, timeout_s: float = 60.0) -> None:
    """Wait until MathJax (if the page loads it) has typeset every formula and added the MathML a
    screen reader reads: a fixed pause was too short on a loaded machine."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.set_default_timeout(timeout_s * 1000)
    page.evaluate(MATHJAX_QUEUE_EMPTY)
    with contextlib.suppress(PlaywrightTimeout):  # the caller counts what is missing, by page
        page.wait_for_function(
            """() => document.querySelectorAll('.MJX_Assistive_MathML').length
                     >= document.querySelectorAll('.MathJax_CHTML').length""",
            timeout=timeout_s * 1000, polling=200)  # fmt: skip


#: The embedded widgets' state, read once the page has loaded: (views to draw, views drawn, elements they hold).
#: nbconvert writes one `widget-view+json` script per widget output; the widget manager draws each view
#: into a `widget-subarea` just before its script. A page without widgets (every HTML page here: they
#: show the snapshots) has none.
WIDGET_VIEWS = """() => {
    const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
    const areas = views.map(s => s.previousElementSibling).filter(a => a && a.classList.contains('widget-subarea'));
    return [views.length, areas.filter(a => a.childElementCount > 0).length,
            areas.reduce((n, a) => n + a.querySelectorAll('*').length, 0)];
}"""


def widgets_settled(page, step_ms: int = 150, limit_ms: int = 6000) -> None:
    """Wait until every embedded widget view is drawn and what the views hold stayed the same for one more
    step (a view may draw its children later); a page without widgets does not wait. A fixed pause per
    page (1.5 s, then a quiet period of 450 ms) was slower, and on a loaded machine not always long
    enough."""
    last, waited = None, 0
    while waited < limit_ms:
        views, drawn, held = page.evaluate(WIDGET_VIEWS)
        if views == 0 or (drawn == views and held == last):
            return
        last = held if drawn == views else None
        page.wait_for_timeout(step_ms)
        waited += step_ms


def axe_pages(browser, axe: str, pages: list[Path], names: dict[Path, str] | None = None) -> tuple[str, list[str]]:
    """Run axe-core on each page (decks with every slide shown); return the table (violations by
    impact, one row per page) and the serious or critical findings. Pages that typeset formulas
    must carry MathJax's assistive MathML (what a screen reader reads)."""
    rows, bad = [], []
    context = browser.new_context(viewport={"width": build.SLIDE_WIDTH, "height": build.SLIDE_HEIGHT})
    for path in pages:
        page = context.new_page()
        bs.PageLog(page)
        page.goto(path.as_uri())
        if path.name.endswith(".slides.html"):
            page.wait_for_selector(".reveal.ready", state="attached", timeout=30_000)
            page.add_style_tag(content=ALL_SLIDES)
            page.evaluate(SLIDES_NOT_HIDDEN)
        else:
            page.wait_for_load_state("load")
        widgets_settled(page)
        mathjax_done(page)
        found = bs.run_axe(page, axe)
        name = (names or {}).get(path, path.name)
        rows.append(bs.axe_line(name, found))
        bad += [f"{name}: {v['id']} ({v['impact']}) {v['help']} at {v['where']}" for v in found
                if v["impact"] in ("serious", "critical")]  # fmt: skip
        typeset = page.evaluate("() => document.querySelectorAll('.MathJax_CHTML').length")
        spoken = page.evaluate("() => document.querySelectorAll('.MJX_Assistive_MathML').length")
        if typeset and spoken < typeset:
            bad.append(f"{name}: {typeset - spoken} of {typeset} formulas without assistive MathML")
        page.close()
    context.close()
    table = "| page | " + " | ".join(bs.IMPACTS) + " | rules |\n|---|---|---|---|---|---|\n" + "\n".join(rows)
    return table, bad


def test_axe_finds_no_serious_or_critical_violation_in_the_german_edition(browser, axe, tmp_path):
    """The German decks and pages the notebook tests built (test-artifacts/build/de/) and the leaderboard
    in German: each declares lang="de", and axe finds no violation at all (of any impact)."""
    from gamekit.i18n import use_language
    from gamekit.tournament.html import write_report
    from gamekit.tournament.results import Results
    from gamekit.tournament.runner import Tournament

    built = bs.ROOT / "test-artifacts" / "build" / "de"
    pages = sorted(built.glob("slides/*.slides.html")) + sorted(built.glob("html/*.html"))
    if not pages:
        pytest.skip("the German edition was not built in this run (the notebook tier builds it)")
    agents = [AGENTS / "first_free.py", AGENTS / "random_mover.py", AGENTS / "perfect.py"]
    t = Tournament(tmp_path / "t.sqlite", agents, game="tictactoe", starts=2, seed=1, sandbox=False)
    t.run(workers=1)
    with use_language("de"):
        german_board = write_report(Results(t), tmp_path / "report", reps=50)
    pages.append(german_board)
    for page in pages:
        head = page.read_text(encoding="utf-8")[:2000]
        assert re.search(r"<html lang=[\"']de[\"']", head), f"{page.name} does not declare German"
    table, bad = axe_pages(browser, axe, pages, {german_board: "leaderboard.html (tournament, German)"})
    (bs.artifacts() / "axe-de.md").write_text(table + "\n", encoding="utf-8")
    print("\naxe-core violations by impact (rules), German edition:\n" + table)
    assert not bad, "serious or critical accessibility violations:\n" + "\n".join(bad)
    rows = table.splitlines()[2:]
    assert len(rows) == len(pages) and all(row.endswith("| 0 | 0 | 0 | 0 | - |") for row in rows), table  # none at all


def test_axe_finds_no_serious_or_critical_violation(browser, axe, leaderboard):
    tmp_root = Path(tempfile.mkdtemp(prefix="axe-"))
    pages = [*_built_pages(tmp_root), leaderboard]
    table, bad = axe_pages(browser, axe, pages, {leaderboard: "leaderboard.html (tournament)"})
    shutil.rmtree(tmp_root, ignore_errors=True)
    (bs.artifacts() / "axe.md").write_text(table + "\n", encoding="utf-8")
    print("\naxe-core violations by impact (rules):\n" + table)
    assert not bad, "serious or critical accessibility violations:\n" + "\n".join(bad)
