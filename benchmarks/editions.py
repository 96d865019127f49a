"""The German edition, measured: how much is translated, and what a German build costs against the English one.

    python benchmarks/editions.py            # every lesson: prose, catalogue, execution time per language
    python benchmarks/editions.py 01 07      # some lessons only (execution is the slow part)

Prints, per lesson, the prose cells and words of each language (the bilingual masters), then the
catalogue's size (strings, words, where they come from), then each lesson executed in each edition,
English and German alternating so that a busy machine weighs on both alike, with the ratio German /
English (the German edition runs the same code; the difference is gettext and the German strings).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamekit import i18n
from gamekit.course.bilingual import translation_counts
from gamekit.course.execute import execute_notebook


def main(chosen: list[str]) -> None:
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    if chosen:
        notebooks = [p for p in notebooks if any(p.name.startswith(c) for c in chosen)]
    print("| lesson | prose cells | translated | words (en) | words (de) |\n|---|---|---|---|---|")
    total: Counter[str] = Counter()
    for path in notebooks:
        counts = translation_counts(nbformat.read(path, as_version=4))
        total.update(counts)
        cells, words = f"{counts['cells']} | {counts['translated']}", f"{counts['words_en']:,} | {counts['words_de']:,}"
        print(f"| {path.stem} | {cells} | {words} |")
    print(f"| all | {total['cells']} | {total['translated']} | {total['words_en']:,} | {total['words_de']:,} |\n")

    catalogue = i18n._read_catalogue("de")
    messages = [m for m in catalogue if m.id]
    where: Counter[str] = Counter()
    for m in messages:
        files = {loc[0] for loc in m.locations}
        kind = (
            "public checks' hints"
            if all(f.startswith("notebooks/") for f in files)
            and m.auto_comments
            and "public check" in m.auto_comments[0]
            else "lessons' code cells"
            if all(f.startswith("notebooks/") for f in files)
            else "package"
        )
        where[kind] += 1
    words = sum(len((m.id if isinstance(m.id, str) else m.id[0]).split()) for m in messages)
    print(
        f"catalogue: {len(messages)} strings, {words:,} English words; "
        + ", ".join(f"{n} {k}" for k, n in where.items())
    )
    print(f"problems: {i18n.catalogue_problems('de') or 'none'}\n")

    print("| lesson | English (s) | German (s) | German / English |\n|---|---|---|---|")
    sums = {"en": 0.0, "de": 0.0}
    for path in notebooks:
        seconds = {}
        for lang in ("en", "de"):
            start = time.perf_counter()
            execute_notebook(path, lang=lang)
            seconds[lang] = time.perf_counter() - start
            sums[lang] += seconds[lang]
        print(f"| {path.stem} | {seconds['en']:.1f} | {seconds['de']:.1f} | {seconds['de'] / seconds['en']:.2f} |")
    print(f"| all | {sums['en']:.1f} | {sums['de']:.1f} | {sums['de'] / sums['en']:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
