"""Check built slides for a projector: slides too tall, code running off the side, figures too small.

    python -m gamekit.course slides 02                  # build first (offline slides in _build/slides/)
    python scripts/check_slides.py 02 [--shots DIR]     # then measure every slide at 1280x720
    python scripts/check_slides.py 02 --static          # figures only, from the HTML, without a browser

Opens the slides in Debian's Chromium (Playwright, no network), shows every slide with all its
fragments, and reports each slide that still scrolls after the slides' own shrink-to-fit (down to
75 %), or whose code is wider than its box; slides that fit only shrunk are listed as a warning.
Every figure drawn with the slide style carries its smallest font size (points) and its dpi; the
script measures the figure's width on the slide (in pixels of the 1280 x 720 slide, after reveal's
scaling and the shrink-to-fit) and so the height of its smallest text. A figure whose smallest
text is under 14 px on the slide, or that spans less than half the slide's width and half its
height, is too small. With --shots it saves one PNG per slide, to look at.
Exit status 1 when a slide does not fit or a figure is too small.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from gamekit.course.build import MIN_FIGURE_SHARE, MIN_TEXT_PX, SLIDE_HEIGHT, SLIDE_WIDTH, figure_report


def figure_too_small(width: float, height: float, text_px: float) -> str:
    """Why a figure of this size on the slide is too small for a projector ('' when it is fine)."""
    why = []
    if text_px < MIN_TEXT_PX:
        why.append(f"smallest text {text_px:.1f} px < {MIN_TEXT_PX:g} px")
    if max(width / SLIDE_WIDTH, height / SLIDE_HEIGHT) < MIN_FIGURE_SHARE:
        why.append(f"{width:.0f} x {height:.0f} px spans less than half the slide")
    return "; ".join(why)


def static_check(path: Path) -> int:
    """Figures only, from the sizes the build wrote into the HTML (no browser needed)."""
    report = figure_report(path.read_text(encoding="utf-8"))
    bad = [r for r in report if not r["ok"]]
    print(f"{path.name}: {len(report)} measured figures, {len(bad)} too small for a 1280x720 projector")
    for k, r in enumerate(report, 1):
        why = figure_too_small(r["width"], r["height"], r["min_text_px"])
        if why:
            print(f"  TOO SMALL figure {k}: {why}")
    return 1 if bad else 0


MEASURE = """async () => {
  const R = await new Promise(done => require(['lib/reveal.js/dist/reveal.js'], done));
  const out = [];
  for (const s of R.getSlides()) {
    const idx = R.getIndices(s);
    const n = s.querySelectorAll('.fragment').length;
    R.slide(idx.h, idx.v, n ? n - 1 : undefined);
    await new Promise(r => setTimeout(r, 50));
    let wide = 0;
    for (const pre of s.querySelectorAll('pre')) wide = Math.max(wide, pre.scrollWidth - pre.clientWidth);
    const title = (s.querySelector('h1, h2, h3') || {}).textContent || '';
    const figures = [];
    for (const img of s.querySelectorAll('img.gamekit-figure')) {
      const box = img.getBoundingClientRect();
      const scale = R.getScale();
      const width = box.width / scale, height = box.height / scale;
      const px = parseFloat(img.dataset.minFontPt) * parseFloat(img.dataset.dpi) / 72 * width / img.naturalWidth;
      figures.push({width: Math.round(width), height: Math.round(height), text_px: Math.round(px * 10) / 10});
    }
    out.push({h: idx.h, v: idx.v, zoom: parseFloat(s.style.zoom || '1'),
              scrolls: s.classList.contains('gamekit-scroll'), too_wide: wide,
              title: title.trim().replace('\u00b6', '').slice(0, 60), figures: figures});
  }
  return out;
}"""

SHOW = """async ([h, v]) => {
  const R = await new Promise(done => require(['lib/reveal.js/dist/reveal.js'], done));
  const s = R.getSlide(h, v); const n = s.querySelectorAll('.fragment').length;
  R.slide(h, v, n ? n - 1 : undefined);
}"""


def slides_file(name: str) -> Path:
    folder = ROOT / "_build" / "slides"
    found = sorted(folder.glob(f"{name}*.slides.html")) if len(name) == 2 else [Path(name)]
    if not found or not found[0].exists():
        raise SystemExit(
            f"no built slides for {name!r} in {folder}: run `python -m gamekit.course slides {name}` first"
        )
    return found[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebook", help="chapter number (e.g. 02) or a .slides.html file")
    parser.add_argument("--shots", type=Path, help="folder for one screenshot per slide")
    parser.add_argument("--static", action="store_true", help="check figure sizes from the HTML only (no browser)")
    args = parser.parse_args()
    path = slides_file(args.notebook)
    if args.static:
        return static_check(path)
    import browser_support as bs

    reason = bs.skip_reason()
    if reason:
        raise SystemExit(reason)
    with bs.chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        log = bs.PageLog(page)
        page.goto(path.resolve().as_uri())
        page.wait_for_selector(".reveal.ready", state="attached")
        page.wait_for_timeout(1500)
        result = page.evaluate(MEASURE)
        bad = [r for r in result if r["scrolls"] or r["too_wide"] > 0]
        shrunk = [r for r in result if r["zoom"] < 1 and not r["scrolls"]]
        print(
            f"{path.name}: {len(result)} slides, {len(bad)} do not fit a 1280x720 screen, "
            f"{len(shrunk)} fit only shrunk (75-99 %)"
        )
        for r in bad:
            print(
                f"  DOES NOT FIT slide {r['h']}/{r['v']} '{r['title']}'"
                + (": scrolls" if r["scrolls"] else "")
                + (f", code {r['too_wide']}px too wide" if r["too_wide"] else "")
            )
        for r in shrunk:
            print(f"  shrunk to {r['zoom']:.0%}: slide {r['h']}/{r['v']} '{r['title']}'")
        figures = [(r, f) for r in result for f in r["figures"]]
        small = [(r, f, why) for r, f in figures if (why := figure_too_small(f["width"], f["height"], f["text_px"]))]
        print(f"{len(figures)} measured figures, {len(small)} too small for a 1280x720 projector")
        for r, _, why in small:
            print(f"  TOO SMALL figure on slide {r['h']}/{r['v']} '{r['title']}': {why}")
        if args.shots:
            args.shots.mkdir(parents=True, exist_ok=True)
            for r in result:
                page.evaluate(SHOW, [r["h"], r["v"]])
                page.wait_for_timeout(900)
                page.screenshot(path=str(args.shots / f"{path.name.split('.')[0]}-{r['h']:02d}-{r['v']:02d}.png"))
        if log.blocked or log.errors:
            print("blocked requests:", log.blocked, "page errors:", log.errors)
    return 1 if bad or small else 0


if __name__ == "__main__":
    sys.exit(main())
