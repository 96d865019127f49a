"""The bilingual masters (gamekit/course/bilingual.py): every English prose cell has its current German
right after it, each pair keeps its structure, the editions share their code byte for byte, and the
German "Die Quelle sagt" boxes quote the source documents in their own words. Static: seconds."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT

from gamekit.course import bilingual
from gamekit.course.bilingual import edition, import_cells, is_translation, pairing_problems, source_hash

SEEDS = ROOT.parent / "shared" / "seeds"


def _master(path):
    return nbformat.read(path, as_version=4)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_prose_cell_has_its_current_german_with_the_same_structure(path):
    """0 unpaired and 0 stale prose cells; headings, math, inline code, links, images and source boxes
    the same in each pair (`python -m gamekit.course translate check` says the same, cell by cell)."""
    assert pairing_problems(_master(path), path.name) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_editions_share_every_code_raw_and_test_cell_byte_for_byte(path):
    nb = _master(path)
    en, de = edition(nb, "en"), edition(nb, "de")
    shared = [(c.cell_type, c.source, c.get("id")) for c in nb.cells if c.cell_type != "markdown"]
    assert [(c.cell_type, c.source, c.get("id")) for c in en.cells if c.cell_type != "markdown"] == shared
    assert [(c.cell_type, c.source, c.get("id")) for c in de.cells if c.cell_type != "markdown"] == shared
    assert len(en.cells) == len(de.cells), "each German cell takes its English cell's place"
    assert [c.get("id") for c in en.cells] == [c.get("id") for c in de.cells]
    assert not any(is_translation(c) for c in en.cells)
    prose = [c for c in de.cells if c.cell_type == "markdown"]
    assert prose and all(c.metadata.get("lang") == "de" for c in prose), "the German edition has no English prose left"
    assert not any(is_translation(c) for c in de.cells), "an edition is no master: editioning it again changes nothing"
    assert edition(de, "de").cells == de.cells and edition(en, "en").cells == en.cells


def _normal(text: str) -> str:
    """Quotes compared as a reader sees them: Unicode NFC, runs of white space as one space, soft hyphens out."""
    text = unicodedata.normalize("NFC", text).replace("\u00ad", "")
    return re.sub(r"\s+", " ", text).strip()


_BOX = re.compile(r"\*\*Die Quelle sagt:\*\*(.*?)(?:\n\s*\n|\Z)", re.S)
_QUOTE = re.compile(r"„(.+?)“", re.S)


def _german_quotes():
    for path in NOTEBOOKS:
        for cell in _master(path).cells:
            if not is_translation(cell):
                continue
            for box in _BOX.findall(cell.source):
                body = re.sub(r"^\s*>\s?", "", box, flags=re.M)
                for quote in _QUOTE.findall(body):
                    yield path.name, cell.get("id"), quote


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the source documents (shared/seeds/) are not beside this checkout")
def test_every_german_source_box_quotes_a_source_exactly():
    """Each „…“ quotation in a "Die Quelle sagt" box occurs in a source document word for word (parts
    left out are marked "…"; each part must occur)."""
    seeds = _normal(" ".join(p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("00*.txt"))))
    quotes = list(_german_quotes())
    boxes = sum(c.source.count("**Die Quelle sagt:**") for p in NOTEBOOKS for c in _master(p).cells)
    english = sum(c.source.count("**The source says:**") for p in NOTEBOOKS for c in _master(p).cells)
    assert boxes == english, "every English source box has its German one"
    wrong = []
    for name, cell, quote in quotes:
        parts = [part for part in re.split(r"\s*(?:…|\[…\]|\.\.\.)\s*", _normal(quote)) if part.strip()]
        if not all(part in seeds for part in parts):
            wrong.append(f"{name} cell {cell}: „{quote}“")
    assert not wrong, "not in the sources as quoted:\n" + "\n".join(wrong)


# --- the tools themselves, on a small master -------------------------------------------------------


def _tiny():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md("# Title\n\nSome `answer_1_1` and $n \\bmod 8$ and a [link](https://example.org)."),
        code("x = 1"),
        md("**Exercise 1.1** (compute) Assign it.", metadata={"self_study_hint": "look at x"}),
    ]
    for k, cell in enumerate(cells):
        cell["id"] = f"c{k}"
        cell.metadata["slideshow"] = {"slide_type": "slide"}
    return nbformat.v4.new_notebook(cells=cells)


def test_import_pairs_stamps_and_a_change_of_the_english_makes_the_german_stale():
    nb = _tiny()
    assert len(pairing_problems(nb)) == 2
    written = import_cells(
        nb,
        {
            "c0": "# Titel\n\nEtwas `answer_1_1` und $n \\bmod 8$ und ein [Link](https://example.org).",
            "c2": {"german": "**Aufgabe 1.1** (berechnen) Weise es zu.", "german_hint": "schau dir x an"},
        },
    )
    assert written == 2 and pairing_problems(nb) == []
    assert [c.get("id") for c in nb.cells] == ["c0", "c0-de", "c1", "c2", "c2-de"]
    de = edition(nb, "de")
    assert de.cells[2].source.startswith("**Aufgabe 1.1**")
    assert de.cells[2].metadata["self_study_hint"] == "schau dir x an"
    assert de.cells[2]["id"] == "c2" and de.metadata["gamekit"]["lang"] == "de"
    import_cells(nb, {"c0": nb.cells[1].source})  # translated again: the German cell keeps its id
    assert [c.get("id") for c in nb.cells] == ["c0", "c0-de", "c1", "c2", "c2-de"]
    nb.cells[0].source += " One more sentence."
    assert pairing_problems(nb, "tiny") == [
        "tiny cell 0 (id c0): German translation is stale (the English cell changed): " + repr(nb.cells[0].source[:50])
    ]
    nb.cells[3].metadata["self_study_hint"] = "look at x again"  # a changed hint is a change too
    assert any("cell 3" in p and "stale" in p for p in pairing_problems(nb))


@pytest.mark.parametrize(
    ("german", "what"),
    [
        ("Titel\n\nEtwas `answer_1_1` und $n \\bmod 8$ und ein [Link](https://example.org).", "headings"),
        ("# Titel\n\nEtwas `answer_1_2` und $n \\bmod 8$ und ein [Link](https://example.org).", "inline code"),
        ("# Titel\n\nEtwas `answer_1_1` und $n$ und ein [Link](https://example.org).", "math"),
        ("# Titel\n\nEtwas `answer_1_1` und $n \\bmod 8$ und ein [Link](https://example.com).", "links"),
        ("# Titel\n\nEtwas `answer_1_1 x` und $n \\bmod 8$ und ein [Link](https://example.org).", "inline code"),
    ],
)
def test_a_pair_whose_structure_differs_is_named(german, what):
    nb = _tiny()
    import_cells(nb, {"c0": german, "c2": {"german": "**Aufgabe 1.1** x", "german_hint": "x"}})
    problems = pairing_problems(nb, "tiny")
    assert len(problems) == 1 and f"differs in its {what}" in problems[0], problems


def test_bad_translations_are_refused_and_change_nothing():
    nb = _tiny()
    before = nbformat.writes(nb)
    for bad, why in [
        ({"nope": "x"}, "not the id of an English Markdown cell"),
        ({"c1": "x"}, "not the id of an English Markdown cell"),  # a code cell
        ({"c0": "  "}, "missing or empty"),
        ({"c2": "**Aufgabe 1.1** ohne Hinweis"}, "give its German as 'german_hint'"),
    ]:
        with pytest.raises(ValueError, match=re.escape(why)):
            import_cells(nb, {"c0": "# T\n\nx `answer_1_1` $n \\bmod 8$ [L](https://example.org)", **bad})
        assert nbformat.writes(nb) == before
    with pytest.raises(ValueError, match="'en' or 'de'"):
        edition(nb, "fr")


def test_misplaced_and_orphaned_german_cells_are_named():
    nb = _tiny()
    title = "# T\n\nx `answer_1_1` $n \\bmod 8$ [L](https://example.org)"
    import_cells(nb, {"c0": title, "c2": {"german": "y", "german_hint": "z"}})
    nb.cells.insert(0, nb.cells.pop(1))  # the German title before its English cell
    problems = pairing_problems(nb, "tiny")
    assert any("not directly after the English cell 'c0'" in p for p in problems)
    assert any("cell 1 (id c0): English prose cell without its German" in p for p in problems)


def test_the_hash_covers_text_and_hint():
    a, b = _tiny().cells[2], _tiny().cells[2]
    assert source_hash(a) == source_hash(b)
    b.metadata["self_study_hint"] = "other"
    assert source_hash(a) != source_hash(b)


def test_the_command_exports_imports_and_checks(tmp_path):
    path = tmp_path / "99-tiny.ipynb"
    nbformat.write(_tiny(), path)
    run = [sys.executable, "-m", "gamekit.course", "translate"]
    todo = json.loads(subprocess.run([*run, "export", str(path)], capture_output=True, text=True, check=True).stdout)
    assert [item["id"] for item in todo] == ["c0", "c2"] and todo[1]["hint"] == "look at x"
    bad = subprocess.run([*run, "check", str(path)], capture_output=True, text=True)
    assert bad.returncode == 1 and "without its German translation" in bad.stdout
    todo[0]["german"] = "# T\n\nx `answer_1_1` $n \\bmod 8$ [L](https://example.org)"
    todo[1].update(german="**Aufgabe 1.1** y", german_hint="z")
    (tmp_path / "done.json").write_text(json.dumps(todo), encoding="utf-8")
    subprocess.run([*run, "import", str(path), str(tmp_path / "done.json")], check=True, capture_output=True)
    good = subprocess.run([*run, "check", str(path)], capture_output=True, text=True)
    assert good.returncode == 0 and "every prose cell has its current German" in good.stdout, good.stdout
    assert json.loads(subprocess.run([*run, "export", str(path)], capture_output=True, text=True).stdout) == []
    refused = subprocess.run([*run, "import", str(path), str(tmp_path / "done.json")], capture_output=True, text=True)
    assert refused.returncode == 0  # importing the same German again is allowed (it replaces)
    (tmp_path / "bad.json").write_text(json.dumps({"zzz": "x"}), encoding="utf-8")
    refused = subprocess.run([*run, "import", str(path), str(tmp_path / "bad.json")], capture_output=True, text=True)
    assert refused.returncode == 2 and "'zzz' is not the id" in refused.stderr


def test_counts_are_measured_on_the_masters():
    counts = [bilingual.translation_counts(_master(p)) for p in NOTEBOOKS]
    assert sum(c["cells"] for c in counts) > 400 and sum(c["words_en"] for c in counts) > 30_000


#: Words the German edition does not use, with the glossary's word for the thing (docs/glossary.md).
AVOIDED = {
    r"Hölzchen": "Streichhölzer",
    r"\bKI\b": "AI (the source's word)",
    r"\bWertung": "Rating",
    r"Punkteanteil": "Punktquote",
    r"\bSpielpaar": "Partiepaar",
    r"\bForfeit": "kampflose Niederlage",
    r"Round Robin": "Rundenturnier",
    r"Zeitreserve": "Zeitkonto",
    r"\bgierige": "Greedy-Zug",
    # P-Position, N-Position and the source's Pole Position(s) keep their names
    r"(?<![PN]-)(?<!Pole )(?<!Pole-)\bPosition(?:en)?\b": "Stellung",
}


def _outside_quotes_and_code(text: str) -> str:
    """Text without its „quotations“ (a source's own words), code spans and math."""
    return re.sub(r"\$[^$]*\$", "", re.sub(r"`[^`]*`", "", re.sub(r"„[^“]*“", "", text)))


def test_the_german_edition_speaks_one_vocabulary():
    """The German prose and the catalogue use the glossary's word for each thing, never a synonym (outside a
    source's quoted words): one lesson's Stellung is the next one's Stellung."""
    from gamekit import i18n

    texts = [(f"{p.name} {c.get('id')}", c.source) for p in NOTEBOOKS for c in _master(p).cells if is_translation(c)]
    for m in i18n._read_catalogue("de"):
        if m.id:
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            texts += [(f"catalogue {m.id!r:.50}", s or "") for s in strings]
    found = [
        f"{where}: {hit.group(0)!r} (say {use})"
        for where, text in texts
        for pattern, use in AVOIDED.items()
        for hit in re.finditer(pattern, _outside_quotes_and_code(text))
    ]
    assert found == []
