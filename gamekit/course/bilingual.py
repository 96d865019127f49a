"""Bilingual masters: one notebook per lesson holds the English and the German prose, and the code once.

Every Markdown cell of a master (the English source) has its German translation in the cell right
after it. The German cell carries, in its metadata,

- `lang: "de"`: it belongs to the German edition only;
- `translates`: the id of the English cell it translates;
- `source_sha`: a hash of that English cell's text (and its self-study hint) when it was translated.

Code, raw and test cells exist once and are shared by both editions, so the editions cannot drift
apart in what they run. `edition(nb, "en")` drops the German cells; `edition(nb, "de")` puts each
German cell in the place of its English one (with the English cell's id, so that everything that
names a cell by id still finds it). Every builder reads a master through `edition`.

When an English cell changes, its stored hash no longer matches: `pairing_problems` names the
cell as stale until the translation is brought up to date. Translators work on JSON files:

    python -m gamekit.course translate export NB [--all] > todo.json   # what lacks German or is stale
    python -m gamekit.course translate import NB done.json              # German cells in, hashes stamped
    python -m gamekit.course translate check [NB ...]                   # unpaired, stale, structure

(docs/translation.md).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import nbformat

__all__ = [
    "HASH_KEY",
    "LANG_KEY",
    "SOURCE_SAYS",
    "TRANSLATES_KEY",
    "edition",
    "export_cells",
    "import_cells",
    "is_translation",
    "pairing_problems",
    "shown_text",
    "source_hash",
    "structure",
    "translation_counts",
]

#: The metadata keys of a German cell.
LANG_KEY = "lang"
TRANSLATES_KEY = "translates"
HASH_KEY = "source_sha"
#: The languages of a master: the source (its Markdown cells without a `lang`) and its translation.
SOURCE, TRANSLATION = "en", "de"
#: The prose cells' self-study hint (a one-line hint in the metadata of an exercise's prompt): translated too.
HINT_KEY = "self_study_hint"
#: How a box that quotes a source document begins, per language (COURSE.md: "The source says …").
SOURCE_SAYS = {"en": "**The source says:**", "de": "**Die Quelle sagt:**"}

_OWN_KEYS = (LANG_KEY, TRANSLATES_KEY, HASH_KEY)


def source_hash(cell: Any) -> str:
    """A short hash of what a translation of `cell` must render: its text and its self-study hint."""
    hint = cell.metadata.get(HINT_KEY, "")
    return hashlib.sha256((cell.source + "\0" + str(hint)).encode("utf-8")).hexdigest()[:16]


def is_translation(cell: Any) -> bool:
    """True for a German cell of a bilingual master (in a German edition, where it stands in its English
    cell's place, it keeps `lang` but no longer names a cell it `translates`)."""
    return (
        cell.cell_type == "markdown" and cell.metadata.get(LANG_KEY) == TRANSLATION and TRANSLATES_KEY in cell.metadata
    )


def _shared_metadata(cell: Any) -> dict:
    """The metadata a German cell shares with its English one (slides, tags, ...): all but its own keys and the hint."""
    return {k: v for k, v in cell.metadata.items() if k not in _OWN_KEYS and k != HINT_KEY}


def _check_language(lang: str) -> str:
    if lang not in (SOURCE, TRANSLATION):
        raise ValueError(f"a master's edition is 'en' or 'de', got {lang!r}")
    return lang


def edition(nb: nbformat.NotebookNode, lang: str) -> nbformat.NotebookNode:
    """A copy of the bilingual master `nb` in one language: English without the German cells; German with each
    German cell in its English cell's place (an English cell without German stays, as in a master being translated)."""
    _check_language(lang)
    out = copy.deepcopy(nb)
    if lang == SOURCE:
        out.cells = [c for c in out.cells if not is_translation(c)]
        return out
    german = {c.metadata.get(TRANSLATES_KEY): c for c in out.cells if is_translation(c)}
    masters_german = [is_translation(c) for c in out.cells]  # before any German cell takes its place
    cells = []
    for cell, is_german in zip(out.cells, masters_german):
        if is_german:
            continue
        de = german.get(cell.get("id")) if cell.cell_type == "markdown" else None
        if de is None:
            cells.append(cell)
            continue
        de.metadata = nbformat.NotebookNode(
            {k: v for k, v in de.metadata.items() if k not in (TRANSLATES_KEY, HASH_KEY)}
        )
        de["id"] = cell["id"]
        cells.append(de)
    out.cells = cells
    out.metadata.setdefault("gamekit", {})["lang"] = TRANSLATION
    return out


def read_edition(path: str | Path, lang: str) -> nbformat.NotebookNode:
    """The master at `path` in `lang` (see `edition`)."""
    return edition(nbformat.read(Path(path), as_version=4), lang)


# --- structure: what a translation keeps ----------------------------------------------------------

_FENCE = re.compile(r"```.*?```", re.S)
_CODE = re.compile(r"`((?:[^`\n]|\n(?!\s*\n))+)`")  # a code span may wrap a line, never a paragraph
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$([^$\n]+?)\$")
_LINK = re.compile(r"(!?)\[[^\]]*\]\(([^)\s]+)[^)]*\)")
_HEADING = re.compile(r"^(#{1,6})\s", re.M)
_HTML_IMG = re.compile(r"<img\b[^>]*\bsrc=\"([^\"]+)\"", re.I)


def structure(text: str) -> dict[str, Any]:
    """What a translation of the Markdown `text` must keep: its heading levels in order, its math, its inline
    code and code blocks, its link and image targets, and how many "source says" boxes it has."""
    fences = _FENCE.findall(text)
    rest = _FENCE.sub(" ", text)
    code = _CODE.findall(rest)
    rest = _CODE.sub(" ", rest)
    display = _DISPLAY_MATH.findall(rest)
    rest = _DISPLAY_MATH.sub(" ", rest)
    inline = _INLINE_MATH.findall(rest)
    links = _LINK.findall(rest)
    boxes = sum(text.count(box) for box in SOURCE_SAYS.values())
    return {
        "headings": [len(h) for h in _HEADING.findall(rest)],
        "code blocks": fences,
        "inline code": sorted(Counter(" ".join(c.split()) for c in code).elements()),
        "math": sorted(Counter(m.strip() for m in display + inline).elements()),
        "links": sorted(target for bang, target in links if not bang),
        "images": sorted([target for bang, target in links if bang] + _HTML_IMG.findall(rest)),
        "source boxes": boxes,
    }


# --- checking a master ------------------------------------------------------------------------------


def pairing_problems(nb: nbformat.NotebookNode, name: str = "master") -> list[str]:
    """What keeps the bilingual master `nb` from being complete: English prose cells without German,
    German cells that are stale (their English cell changed since), misplaced or orphaned, and pairs whose
    structure differs (headings, math, inline code, links, images, source boxes, slide metadata).
    Each problem names the cell by index and id. Empty when all is well."""
    problems: list[str] = []
    cells = nb.cells
    for i, cell in enumerate(cells):
        where = f"{name} cell {i} (id {cell.get('id')})"
        if is_translation(cell):
            target = cell.metadata.get(TRANSLATES_KEY)
            before = cells[i - 1] if i > 0 else None
            if before is None or before.get("id") != target or is_translation(before):
                problems.append(f"{where}: German cell not directly after the English cell {target!r} it translates")
            continue
        if cell.cell_type != "markdown":
            continue
        after = cells[i + 1] if i + 1 < len(cells) else None
        if after is None or not is_translation(after) or after.metadata.get(TRANSLATES_KEY) != cell.get("id"):
            problems.append(f"{where}: English prose cell without its German translation after it")
            continue
        if after.metadata.get(HASH_KEY) != source_hash(cell):
            problems.append(f"{where}: German translation is stale (the English cell changed): {cell.source[:50]!r}")
            continue
        en, de = structure(cell.source), structure(after.source)
        for key in en:
            if en[key] != de[key]:
                problems.append(f"{where}: the German differs in its {key}: English {en[key]!r}, German {de[key]!r}")
        if cell.source.count(SOURCE_SAYS[SOURCE]) != after.source.count(SOURCE_SAYS[TRANSLATION]):
            problems.append(f"{where}: each '{SOURCE_SAYS[SOURCE]}' box needs a '{SOURCE_SAYS[TRANSLATION]}' box")
        if _shared_metadata(cell) != _shared_metadata(after):
            problems.append(f"{where}: the German cell's metadata (slides, tags) differs from the English cell's")
        if (HINT_KEY in cell.metadata) != (HINT_KEY in after.metadata):
            problems.append(f"{where}: the self-study hint is translated on one side only")
    return problems


def translation_counts(nb: nbformat.NotebookNode) -> dict[str, int]:
    """Prose cells and words per language in the bilingual master `nb` (German words: in its German cells)."""
    en = [c for c in nb.cells if c.cell_type == "markdown" and not is_translation(c)]
    de = [c for c in nb.cells if is_translation(c)]
    return {
        "cells": len(en),
        "translated": len(de),
        "words_en": sum(len(c.source.split()) for c in en),
        "words_de": sum(len(c.source.split()) for c in de),
    }


# --- what an executed edition shows ------------------------------------------------------------------


def shown_text(nb: nbformat.NotebookNode) -> str:
    """The text a reader of the executed notebook `nb` sees besides its code: its prose, every output
    (streams, plain text, HTML, Markdown) but listings of library code (`show_source`), the figures'
    alt texts and the widgets' state (labels, values, messages). What an edition must show in its language."""
    parts = [c.source for c in nb.cells if c.cell_type == "markdown"]
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            meta = out.get("metadata", {})
            if meta.get("gamekit") == "source" or meta.get("text/html", {}).get("gamekit") == "source":
                continue  # a listing of code: the same in every edition
            if out.get("output_type") == "stream":
                parts.append(str(out.get("text", "")))
            data = out.get("data", {})
            for kind in ("text/plain", "text/html", "text/markdown"):
                value = data.get(kind, "")
                parts.append(value if isinstance(value, str) else "".join(value))
            if meta.get("gamekit_alt"):
                parts.append(str(meta["gamekit_alt"]))
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    parts.append(json.dumps(state, ensure_ascii=False))
    return "\n".join(parts)


# --- the translators' files --------------------------------------------------------------------------


def export_cells(nb: nbformat.NotebookNode, everything: bool = False) -> list[dict[str, Any]]:
    """The English prose cells that need German (without a translation, or stale), or with `everything`
    all of them, as a list of {"id", "index", "source", "hint"?, "german"?, "german_hint"?} for a translator."""
    todo = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or is_translation(cell):
            continue
        after: Any = nb.cells[i + 1] if i + 1 < len(nb.cells) else None
        paired = after is not None and is_translation(after) and after.metadata.get(TRANSLATES_KEY) == cell.get("id")
        if paired and after.metadata.get(HASH_KEY) == source_hash(cell) and not everything:
            continue
        item: dict[str, Any] = {"id": cell["id"], "index": i, "source": cell.source}
        if HINT_KEY in cell.metadata:
            item["hint"] = cell.metadata[HINT_KEY]
        if paired:
            item["german"] = after.source
            if HINT_KEY in after.metadata:
                item["german_hint"] = after.metadata[HINT_KEY]
        todo.append(item)
    return todo


def import_cells(nb: nbformat.NotebookNode, translations: dict[str, Any]) -> int:
    """Put the German of `translations` ({english id: German text, or {"german": text, "german_hint": hint}})
    into `nb` in place: a German cell after each English one (replacing an earlier translation), its hash
    stamped from the English cell as it is now. Returns how many cells were written.

    Raises ValueError (and changes nothing) for an id that is no English prose cell of `nb`, an empty text,
    or a missing German hint where the English cell has one."""
    by_id = {c.get("id"): i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and not is_translation(c)}
    prepared: dict[str, tuple[str, str | None]] = {}
    for key, value in translations.items():
        if key not in by_id:
            raise ValueError(f"{key!r} is not the id of an English Markdown cell of this master")
        text, hint = (value, None) if isinstance(value, str) else (value.get("german"), value.get("german_hint"))
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"cell {key!r}: the German text is missing or empty")
        english = nb.cells[by_id[key]]
        if HINT_KEY in english.metadata and not (isinstance(hint, str) and hint.strip()):
            raise ValueError(f"cell {key!r} has a self-study hint: give its German as 'german_hint'")
        prepared[key] = (text, hint)
    earlier = {c.metadata.get(TRANSLATES_KEY): c.get("id") for c in nb.cells if is_translation(c)}
    cells = []
    for cell in nb.cells:
        if is_translation(cell) and cell.metadata.get(TRANSLATES_KEY) in prepared:
            continue  # replaced below
        cells.append(cell)
        if cell.cell_type == "markdown" and not is_translation(cell) and cell.get("id") in prepared:
            text, hint = prepared[cell["id"]]
            de = nbformat.v4.new_markdown_cell(text.rstrip("\n"))
            de["id"] = earlier.get(cell["id"]) or _new_id(cell["id"], nb)  # a new translation keeps its cell's id
            de.metadata = nbformat.NotebookNode(copy.deepcopy(_shared_metadata(cell)))
            if hint is not None:
                de.metadata[HINT_KEY] = hint
            de.metadata[LANG_KEY] = TRANSLATION
            de.metadata[TRANSLATES_KEY] = cell["id"]
            de.metadata[HASH_KEY] = source_hash(cell)
            cells.append(de)
    nb.cells = cells
    return len(prepared)


def _new_id(english_id: str, nb: nbformat.NotebookNode) -> str:
    taken = {c.get("id") for c in nb.cells}
    base = f"{english_id}-de"
    if base not in taken:
        return base
    n = 2
    while f"{base}{n}" in taken:
        n += 1
    return f"{base}{n}"


def main(argv: list[str]) -> int:
    """`translate export|import|check|count` (see the module's doc)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m gamekit.course translate", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    cmd = sub.add_parser("export", help="the English cells that need German, as JSON on standard output")
    cmd.add_argument("notebook", type=Path)
    cmd.add_argument("--all", action="store_true", help="every prose cell, with its German where it has one")
    cmd = sub.add_parser("import", help="German cells from a JSON file {id: German} into the master")
    cmd.add_argument("notebook", type=Path)
    cmd.add_argument("translations", type=Path)
    for name in ("check", "count"):
        cmd = sub.add_parser(name, help="unpaired, stale or unlike pairs" if name == "check" else "cells and words")
        cmd.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if args.action == "export":
        todo = export_cells(nbformat.read(args.notebook, as_version=4), args.all)
        json.dump(todo, sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    if args.action == "import":
        nb = nbformat.read(args.notebook, as_version=4)
        given = json.loads(args.translations.read_text(encoding="utf-8"))
        if isinstance(given, list):  # an exported list with "german" filled in
            given = {item["id"]: item for item in given if item.get("german")}
        written = import_cells(nb, given)
        nbformat.validate(nb)
        nbformat.write(nb, args.notebook)
        print(f"{args.notebook}: {written} German cell(s) written")
        return 0
    paths = args.notebooks or sorted(Path("notebooks").glob("[0-9][0-9]-*.ipynb"))
    failed = False
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if args.action == "count":
            print(path.name, json.dumps(translation_counts(nb)))
            continue
        problems = pairing_problems(nb, path.name)
        for problem in problems:
            print(problem)
        failed = failed or bool(problems)
    if args.action == "check" and not failed:
        print(f"{len(paths)} master(s): every prose cell has its current German, structure kept")
    return 1 if failed else 0
