"""axe-core before and after: each executed lesson as nbconvert's stock page, and as the course builds it.

"Before" is what a course gets from `jupyter nbconvert --to html` of the same executed notebook
(nbconvert's lab template; the figures shown from their PNG, as a stock kernel leaves them);
"after" is the course's own page (`gamekit.course.build.page_html`: alt text from the data, the
data table folded, contrast, language, landmarks). axe-core (WCAG 2.1 A/AA and best practices)
runs on both in Chromium; the table gives the violations by impact (rules, not nodes).

    python benchmarks/accessibility.py [test-artifacts]     # after the notebook tests ran

Needs the `browser` extra, Chromium and npm (for axe-core), like the browser tests.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import browser_support as bs

from gamekit.course import build
from gamekit.views.alt import FIGURE_KINDS


def stock_page(nb: nbformat.NotebookNode) -> str:
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name="lab").from_notebook_node(build.figures_as_png(nb))
    return body


def main() -> None:
    artifacts = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "test-artifacts"
    notebooks = sorted(artifacts.glob("*.executed.ipynb"))
    if not notebooks:
        sys.exit(f"no executed notebooks in {artifacts}: run the notebook tests first")
    source = bs.axe_source()
    if source is None:
        sys.exit("npm is not installed, so axe-core cannot be installed")
    paths = build.BuildPaths(Path(tempfile.mkdtemp(prefix="axe-")) / "build", assets_root=ROOT / "_build" / "assets")
    build.install_assets(paths)
    rows = []
    seen: dict[str, set[str]] = {"before": set(), "after": set()}
    with bs.chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        for path in notebooks:
            nb = nbformat.read(path, as_version=4)
            name = path.name.replace(".executed.ipynb", "")
            counts = []
            for_rules = []
            counts_alt: list[tuple[int, int]] = []
            before = paths.root / "stock" / f"{name}.html"
            before.parent.mkdir(parents=True, exist_ok=True)
            before.write_text(stock_page(nb), encoding="utf-8")
            after = build.write_html(nb, name, paths)
            for target in (before, after):
                page = context.new_page()
                page.goto(target.as_uri())
                page.wait_for_load_state("load")
                page.wait_for_timeout(1000)
                alts = page.evaluate("() => [...document.querySelectorAll('img')].map(i => i.alt || '')")
                counts_alt.append((sum(any(k in a[:80] for k in FIGURE_KINDS) for a in alts), len(alts)))
                found = bs.run_axe(page, source)
                counts.append(bs.impact_counts(found))
                for_rules.append({f"{v['id']} ({v['impact']})" for v in found})
                page.close()
            rows.append((name, counts, counts_alt))
            seen["before"] |= for_rules[0]
            seen["after"] |= for_rules[1]
        context.close()
    print("| lesson | " + " | ".join(f"{i} before → after" for i in bs.IMPACTS) + " | images with alt from the data |")
    print("|---|" + "---|" * (len(bs.IMPACTS) + 1))
    for name, (before, after), ((b_ok, b_all), (a_ok, a_all)) in rows:
        impacts = " | ".join(f"{before[i]} → {after[i]}" for i in bs.IMPACTS)
        print(f"| {name} | {impacts} | {b_ok}/{b_all} → {a_ok}/{a_all} |")
    for kind, rules in seen.items():
        print(f"rules {kind}: {', '.join(sorted(rules)) or 'none'}")


if __name__ == "__main__":
    main()
