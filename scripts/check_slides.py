"""Check built slides for a projector: which slides are too tall or have code running off the side.

    python -m gamekit.course slides 02                  # build first (offline slides in _build/slides/)
    python scripts/check_slides.py 02 [--shots DIR]     # then measure every slide at 1280x720

Opens the slides in Debian's Chromium (Playwright, no network), shows every slide with all its
fragments, and reports each slide that still scrolls after the slides' own shrink-to-fit (down to
75 %), or whose code is wider than its box; slides that fit only shrunk are listed as a warning. With --shots it saves one PNG per slide, to look at.
Exit status 1 when a slide does not fit.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import browser_support as bs

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
    out.push({h: idx.h, v: idx.v, zoom: parseFloat(s.style.zoom || '1'), scrolls: s.classList.contains('gamekit-scroll'),
              too_wide: wide, title: title.trim().replace('\u00b6', '').slice(0, 60)});
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
    args = parser.parse_args()
    reason = bs.skip_reason()
    if reason:
        raise SystemExit(reason)
    path = slides_file(args.notebook)
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
        if args.shots:
            args.shots.mkdir(parents=True, exist_ok=True)
            for r in result:
                page.evaluate(SHOW, [r["h"], r["v"]])
                page.wait_for_timeout(900)
                page.screenshot(path=str(args.shots / f"{path.name.split('.')[0]}-{r['h']:02d}-{r['v']:02d}.png"))
        if log.blocked or log.errors:
            print("blocked requests:", log.blocked, "page errors:", log.errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
