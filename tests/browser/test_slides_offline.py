"""The teacher's way in: built slides work in Chromium with the network cut off.

The slides of notebook 01 (or, before it exists, of a small sample notebook) are built with
the course build (executed, widget state kept, reveal.js and friends from npm, copied into
lib/ beside the slides), opened from file:// with every non-local request blocked, and
checked: reveal.js started, a figure and a widget (rendered from its saved state) show,
speaker notes exist, the page logged no errors. Screenshots land in test-artifacts/browser/.
"""
import shutil
import warnings

import pytest

import browser_support as bs
from gamekit.course import build

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


@pytest.fixture(scope="module")
def slides(tmp_path_factory):
    """Offline slides of notebook 01 (or the sample notebook), in a folder of their own."""
    chosen = sorted((bs.ROOT / "notebooks").glob("01-*.ipynb"))
    if not chosen:
        import course_sample  # noqa: F401 - only here, tests/ is on sys.path through the parent conftest

        chosen = [course_sample.write_sample(tmp_path_factory.mktemp("sample"))]
    paths = build.BuildPaths(tmp_path_factory.mktemp("build"), assets_root=bs.ROOT / "_build" / "assets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if not build.install_assets(paths):
            pytest.skip("npm is not installed, so offline slides cannot be built (they would use CDNs)")
    [out] = build.build_slides(chosen, paths)
    # Keep a copy of the whole folder as a test artifact (open it from file:// to look at it).
    shutil.copytree(out.parent, bs.artifacts() / "slides", dirs_exist_ok=True)
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

    # A widget rendered by the widget manager from the state saved at execution time.
    page.wait_for_selector(".jupyter-widgets .lm-Widget", state="attached", timeout=30_000)
    widget = ".jupyter-widgets.jp-OutputArea-output .lm-Widget"
    page.evaluate(SHOW, widget)
    page.wait_for_timeout(800)
    assert page.locator(widget).first.is_visible()
    page.screenshot(path=str(bs.artifacts() / "slides-widget.png"))

    assert log.blocked == [], f"the slides tried to reach the network: {log.blocked}"
    assert log.errors == [], f"the slides logged errors: {log.errors}"
    context.close()
