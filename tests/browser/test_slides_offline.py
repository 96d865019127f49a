"""The teacher's way in: built slides (and the HTML page) work in Chromium with the network cut off.

The slides of notebook 01 (or, while it is not in the exercise format, of the small sample master)
are built with the course build (executed with the slide style, widget state kept, reveal.js and
friends from npm, copied into lib/ beside the slides), opened from file:// with every non-local
request blocked, and checked: reveal.js started, a figure shows with its text at least 14 px on
the slide, a widget (rendered from its saved state) shows with its caption, speaker notes exist
(in the speaker view only), the page logged no errors. The page to read has no solutions; the
solutions page has them folded. Screenshots land in test-artifacts/browser/.
"""

import shutil
import warnings

import browser_support as bs
import nbformat
import pytest

from gamekit.course import assign, build

pytestmark = [pytest.mark.browser, pytest.mark.skipif(bs.skip_reason() is not None, reason=str(bs.skip_reason()))]

# Bring the slide (and fragment) that holds the element matching `selector` on screen.
SHOW = """async (selector) => {
    const Reveal = await new Promise(done => require(['lib/reveal.js/dist/reveal.js'], done));
    const el = document.querySelector(selector);
    const where = Reveal.getIndices(el.closest('section'));
    const fragment = el.closest('.fragment');
    Reveal.slide(where.h, where.v, fragment ? Number(fragment.dataset.fragmentIndex) : undefined);
    return where;
}"""


# The text of every slide without its speaker notes.
SHOWN_TEXT = """() => [...document.querySelectorAll('.slides section')].map(s => {
    const copy = s.cloneNode(true);
    copy.querySelectorAll('aside.notes').forEach(a => a.remove());
    return copy.textContent;
}).join(' ')"""


@pytest.fixture(scope="module")
def slides(tmp_path_factory):
    """Offline slides of notebook 01 (or the sample notebook), in a folder of their own."""
    chosen = sorted((bs.ROOT / "notebooks").glob("01-*.ipynb"))
    if not chosen or not assign.is_assignment(nbformat.read(chosen[0], as_version=4)):
        import course_sample

        chosen = [course_sample.write_sample(tmp_path_factory.mktemp("sample"))]
    paths = build.BuildPaths(tmp_path_factory.mktemp("build"), assets_root=bs.ROOT / "_build" / "assets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if not build.install_assets(paths):
            pytest.skip("npm is not installed, so offline slides cannot be built (they would use CDNs)")
    [out, page] = build.build_slides(chosen, paths, html=True)
    build.build_solutions(chosen, paths)
    # Keep a copy of the built folders as test artifacts (open them from file:// to look at them).
    shutil.copytree(out.parent, bs.artifacts() / "slides", dirs_exist_ok=True)
    shutil.copytree(page.parent, bs.artifacts() / "html", dirs_exist_ok=True)
    return out


@pytest.fixture(scope="module")
def browser():
    with bs.chromium() as b:
        yield b


def test_slides_work_offline(browser, slides):
    context = browser.new_context(viewport={"width": build.SLIDE_WIDTH, "height": build.SLIDE_HEIGHT})
    page = context.new_page()
    log = bs.PageLog(page)
    page.goto(slides.as_uri())
    page.wait_for_selector(".reveal.ready", state="attached", timeout=30_000)
    page.screenshot(path=str(bs.artifacts() / "slides-title.png"))

    # Speaker notes: present in the page and the notes plugin loaded (press S to open them).
    assert page.locator("aside.notes").count() >= 1, "no speaker notes in the slides"
    assert page.evaluate("""async () => {
        const Reveal = await new Promise(done => require(['lib/reveal.js/dist/reveal.js'], done));
        return Reveal.hasPlugin('notes');
    }""")

    # A figure: a PNG output that decoded, shown on its slide.
    figure = "section .jp-OutputArea-output img[src^='data:image/png']"
    assert page.locator(figure).count() >= 1
    page.evaluate(SHOW, figure)
    page.wait_for_timeout(800)
    img = page.locator(figure).first
    assert img.is_visible() and img.evaluate("i => i.complete && i.naturalWidth > 0")
    box = img.bounding_box()
    assert box["y"] + box["height"] <= build.SLIDE_HEIGHT + 1, "the figure runs off the slide"
    page.screenshot(path=str(bs.artifacts() / "slides-figure.png"))
    measured = page.locator("img.gamekit-figure").first
    text_px = measured.evaluate("""async (img) => {
        const Reveal = await new Promise(done => require(['lib/reveal.js/dist/reveal.js'], done));
        const width = img.getBoundingClientRect().width / Reveal.getScale();
        return parseFloat(img.dataset.minFontPt) * parseFloat(img.dataset.dpi) / 72 * width / img.naturalWidth;
    }""")
    # the browser measures what the build chose (scripts/check_slides.py relies on both)
    static = build.figure_report(slides.read_text(encoding="utf-8"))[0]["min_text_px"]
    assert abs(text_px - static) <= 0.5 + 0.02 * static, (text_px, static)

    # A widget rendered by the widget manager from the state saved at execution time.
    page.wait_for_selector(".jupyter-widgets .lm-Widget", state="attached", timeout=30_000)
    widget = ".jupyter-widgets.jp-OutputArea-output .lm-Widget"
    page.evaluate(SHOW, widget)
    page.wait_for_timeout(800)
    assert page.locator(widget).first.is_visible()
    assert page.locator(".gamekit-widget-note").first.is_visible(), "a widget picture needs its caption"
    page.screenshot(path=str(bs.artifacts() / "slides-widget.png"))
    shown = page.evaluate(SHOWN_TEXT)
    notes = page.locator("aside.notes").first.inner_text()
    assert notes[:40] not in shown, "speaker notes must appear only in the speaker view"

    # The speaker view (key S) opens offline and shows the notes of a slide that has some.
    page.evaluate(SHOW, "aside.notes")
    page.wait_for_timeout(800)
    with context.expect_page(timeout=15_000) as opened:
        page.keyboard.press("s")
    speaker = opened.value
    notes = speaker.locator(".speaker-controls-notes")
    notes.wait_for(timeout=15_000)
    speaker.wait_for_function("() => document.querySelector('.speaker-controls-notes').innerText.length > 20")
    speaker.wait_for_timeout(1500)
    speaker.screenshot(path=str(bs.artifacts() / "slides-speaker-view.png"))

    assert log.blocked == [], f"the slides tried to reach the network: {log.blocked}"
    assert log.errors == [], f"the slides logged errors: {log.errors}"
    context.close()


def test_html_page_works_offline(browser, slides):
    page_file = slides.parent.parent / "html" / slides.name.replace(".slides.html", ".html")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    log = bs.PageLog(page)
    page.goto(page_file.as_uri())
    # a widget on the page to read is its picture (with its alt text) and the caption
    page.wait_for_selector(".gamekit-widget-note", state="attached", timeout=30_000)
    images = page.locator(".jp-OutputArea-output img[src^='data:image/png']")
    assert images.count() >= 1 and images.first.evaluate("i => i.complete && i.naturalWidth > 0")
    alts = images.evaluate_all("imgs => imgs.map(i => i.alt)")
    assert all(a and a != "figure" for a in alts), f"images without alt text: {alts}"
    page.screenshot(path=str(bs.artifacts() / "html-top.png"))
    assert page.locator("details.gamekit-solution").count() == 0, "the page to read has no solutions"
    assert log.blocked == [] and log.errors == []
    solutions = slides.parent.parent / "solutions" / slides.name.replace(".slides.html", "-solutions.html")
    page.goto(solutions.as_uri())
    page.wait_for_selector(".gamekit-widget-note", state="attached", timeout=30_000)
    solution = page.locator("details.gamekit-solution").first
    assert solution.count() == 1 and not solution.evaluate("d => d.open"), "solutions should start folded"
    solution.locator("summary").click()
    assert solution.evaluate("d => d.open")
    solution.scroll_into_view_if_needed()
    page.screenshot(path=str(bs.artifacts() / "html-solution-open.png"))
    assert log.blocked == [], f"the page tried to reach the network: {log.blocked}"
    assert log.errors == [], f"the page logged errors: {log.errors}"
    context.close()
