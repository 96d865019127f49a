"""The language of what code shows (gamekit/i18n.py): the German catalogue complete and in step with
the code, the language as state (set_language, GAMEKIT_LANG), English byte for byte unchanged."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from gamekit import i18n
from gamekit.course import checks, selfstudy
from gamekit.i18n import _, get_language, ngettext, pgettext, set_language, use_language


def _checker(**question) -> selfstudy.SelfStudy:
    salt = "s"
    answers = {"answer_1_1": selfstudy.answer_digest(salt, (3, 5, 11))}
    data = {"salt": salt, "questions": {"q1_1": {"label": "Exercise 1.1", "answers": answers, **question}}}
    return selfstudy.SelfStudy(data)


def test_the_german_catalogue_is_complete_and_in_step_with_the_code():
    """Every string the code marks is in the catalogue and translated, none fuzzy, none stale: the
    extractor (`python -m gamekit.i18n extract`) runs on the code as it is now."""
    assert i18n.catalogue_problems("de") == []
    code = {m.id if isinstance(m.id, str) else m.id[0] for m in i18n.extract_messages() if m.id}
    assert {"{question}: not yet.", "correct", "read by your teacher"} <= code, "the extractor found too little"


def test_the_checker_of_the_catalogue_sees_each_kind_of_problem(tmp_path, monkeypatch):
    """A string added to the code is missing, a fuzzy entry and an empty one are named."""
    package = tmp_path / "gamekit"
    (package / "course").mkdir(parents=True)
    source = (ROOT / "gamekit" / "course" / "selfstudy.py").read_text(encoding="utf-8")
    (package / "course" / "selfstudy.py").write_text(source + '\n_("a sentence nobody translated")\n', encoding="utf-8")
    template = i18n.extract_messages(package)
    assert template.get("a sentence nobody translated") is not None
    monkeypatch.setattr(i18n, "extract_messages", lambda package=None: template)
    problems = i18n.catalogue_problems("de")
    missing = "missing from the catalogue (run `python -m gamekit.i18n extract`): 'a sentence nobody translated'"
    assert missing in problems
    assert any(p.startswith("no longer in the code") and "not yet." in p for p in problems)  # checks.py left out


def test_set_language_turns_a_real_self_study_verdict_german_and_back():
    grader = _checker(single=True, public=[])
    right = grader.check("q1_1", {"answer_1_1": [3, 5, 11]})
    assert str(right) == "Exercise 1.1: correct"
    set_language("de")
    assert get_language() == "de"
    assert str(right) == "Exercise 1.1: richtig" and "richtig" in right._repr_html_()
    wrong = grader.check("q1_1", {"answer_1_1": [3, 5]})
    assert wrong.verdict == "not yet", "the verdict stays data that code compares"
    assert str(wrong).startswith("Exercise 1.1: noch nicht — `answer_1_1` hat die richtige Form")
    assert "Hinweis: arbeite den Abschnitt" in wrong.detail
    blank = grader.check("q1_1", {"answer_1_1": ...})
    assert "gib der Variablen `answer_1_1` einen Wert" in blank.detail
    set_language("en")
    assert str(right) == "Exercise 1.1: correct"
    again = grader.check("q1_1", {"answer_1_1": [3, 5]})
    assert again.detail == (
        "`answer_1_1` has the right form but is not the right answer yet. Hint: work through the section "
        "above the exercise again: its method, applied step by step, gives it"
    )


def test_every_verdict_has_a_german_word():
    with use_language("de"):
        words = [selfstudy.verdict_text(v) for v in selfstudy.VERDICTS]
    assert words == ["richtig", "noch nicht", "plausibel", "wird von deiner Lehrkraft gelesen"]
    assert [selfstudy.verdict_text(v) for v in selfstudy.VERDICTS] == list(selfstudy.VERDICTS)
    with pytest.raises(ValueError, match="'correct', 'not yet'"):
        selfstudy.verdict_text("wrong")


def test_the_public_checks_report_speaks_the_language_in_force():
    class Case:
        hidden = False
        failure_message = "answer_99_1 should be a list"

    class Result:
        test_case_results = [type("R", (), {"test_case": Case, "passed": False})]

    report = checks.CheckResult("q99_1", Result())
    assert report.lines() == ["q99_1: not yet.", "Hint: answer_99_1 should be a list"]
    with use_language("de"):
        assert report.lines() == ["q99_1: noch nicht.", "Hinweis: answer_99_1 should be a list"]
    Result.test_case_results[0].passed = True
    with use_language("de"):
        assert "die verborgenen Tests deiner Lehrkraft" in repr(checks.CheckResult("q99_1", Result()))


def test_german_plurals_and_contexts_come_from_the_catalogue():
    with use_language("de"):
        one = ngettext(
            "{names} has the right form but is not the right answer yet. Hint: {hint}",
            "{names} has the right form but is not the right answer yet. Hint: {hint}",
            1,
        )
        two = ngettext(
            "{names} has the right form but is not the right answer yet. Hint: {hint}",
            "{names} has the right form but is not the right answer yet. Hint: {hint}",
            2,
        )
        assert one.startswith("{names} hat ") and two.startswith("{names} haben ")
        assert pgettext("verdict", "plausible") == "plausibel"
        assert _("a string no catalogue holds") == "a string no catalogue holds"


def test_english_returns_the_source_string_unchanged():
    assert get_language() == "en"
    for text in ("{question}: not yet.", "Hint: {hint}", "a string no catalogue holds"):
        assert _(text) is text
    assert ngettext("one", "many", 1) == "one" and ngettext("one", "many", 0) == "many"
    assert pgettext("verdict", "correct") == "correct"


@pytest.mark.parametrize("bad", ["fr", "DE", "", None, "de_DE"])
def test_a_language_the_course_does_not_speak_is_refused_by_name(bad):
    with pytest.raises(ValueError, match=r"language must be one of 'en', 'de', got"):
        set_language(bad)
    assert get_language() == "en", "a refused language changes nothing"


def test_the_environment_variable_chooses_the_language_at_import():
    code = (
        "import gamekit.i18n as i; from gamekit.course.selfstudy import verdict_text as v; "
        "print(i.get_language(), v('correct'))"
    )
    env = {**os.environ, "GAMEKIT_LANG": "de"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["de", "richtig"], done.stderr
    env["GAMEKIT_LANG"] = "fr"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "the environment variable GAMEKIT_LANG must be one of 'en', 'de', got 'fr'" in done.stderr


def test_extract_leaves_a_complete_catalogue_as_it_is(tmp_path, monkeypatch):
    """`python -m gamekit.i18n extract` on the catalogue as committed changes no byte (the committed
    file is what the command makes), and `check` passes."""
    path = i18n.catalogue_path("de")
    before = path.read_bytes()
    copy = tmp_path / "de" / "LC_MESSAGES" / "gamekit.po"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(before)
    monkeypatch.setattr(i18n, "catalogue_path", lambda language: copy)
    assert i18n.update_catalogue("de") is False
    assert copy.read_bytes() == before
    assert i18n.main(["check"]) == 0


def test_no_compiled_catalogue_is_kept():
    compiled = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "gamekit").rglob("*.mo"))
    assert compiled == [], "catalogues are kept as text (.po) and compiled in memory at run time"


SEEDS = ROOT.parent / "shared" / "seeds"


def test_every_glossary_row_quotes_a_source_or_says_it_has_none():
    import re

    text = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    rows = [line for line in text.split("## The terms", 1)[1].splitlines() if line.startswith("| ")][2:]
    assert len(rows) >= 40
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 4 and all(cells), row
        assert re.search(r'\d{3}:\d+ "', cells[3]) or "(no source term)" in row, f"no source quoted: {row}"
    for term in (
        "Aktion",
        "Zustand",
        "Stapel",
        "Spielbaum",
        "Spielgraph",
        "Konfiguration",
        "Gewinnstrategie",
        "rote Zahlen",
        "blaue Zahlen",
        "Unentschieden",
        "Heuristik",
        "Alpha-Beta-Pruning",
        "Exploration",
    ):
        assert any(f"| {term}" in row for row in rows), f"the glossary lacks {term}"


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the source documents (shared/seeds/) are not beside this checkout")
def test_the_glossary_quotes_the_sources_exactly():
    """Each `NNN:LINE "words"` of docs/glossary.md is in that line of that seed, character for character."""
    import re

    seeds = {p.name[:3]: p.read_text(encoding="utf-8").splitlines() for p in SEEDS.glob("00*.txt")}
    text = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    quotes = re.findall(r'(\d{3}):(\d+) "([^"]+)"', text)
    assert len(quotes) >= 50
    wrong = [f"{s}:{n} {q!r}" for s, n, q in quotes if q not in seeds[s][int(n) - 1]]
    assert wrong == [], f"not in the seed's line: {wrong}"


def _language_in(folder, env_language=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GAMEKIT_LANG"}
    if env_language is not None:
        env["GAMEKIT_LANG"] = env_language
    code = "import gamekit.i18n as i; print(i.get_language())"
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True)


def test_a_folder_of_german_copies_makes_its_kernels_speak_german(tmp_path):
    """`--lang de` writes `.gamekit-language` beside the German student copies and solutions: a kernel
    started there (its working folder) speaks German with no cell edited; GAMEKIT_LANG still wins;
    a damaged file is refused with its name, English takes no file."""
    assert _language_in(tmp_path).stdout.strip() == "en"
    i18n.mark_folder(tmp_path, "de")
    assert (tmp_path / ".gamekit-language").read_text(encoding="utf-8").strip() == "de"
    assert _language_in(tmp_path).stdout.strip() == "de"
    assert _language_in(tmp_path, "en").stdout.strip() == "en"
    (tmp_path / ".gamekit-language").write_text("klingon\n", encoding="utf-8")
    bad = _language_in(tmp_path)
    assert bad.returncode != 0 and ".gamekit-language" in bad.stderr and "'klingon'" in bad.stderr
    i18n.mark_folder(tmp_path, "en")
    assert not (tmp_path / ".gamekit-language").exists() and _language_in(tmp_path).stdout.strip() == "en"


def test_fill_puts_translations_in_and_refuses_bad_ones_changing_nothing(tmp_path, monkeypatch):
    """`python -m gamekit.i18n fill FILE.json`: a translator's JSON into the catalogue; an unknown string,
    a lost placeholder or an empty text is refused with its name, and the file stays as it was."""
    from babel.messages.pofile import read_po

    copy = tmp_path / "gamekit.po"
    copy.write_bytes(i18n.catalogue_path("de").read_bytes())
    monkeypatch.setattr(i18n, "catalogue_path", lambda language: copy)
    monkeypatch.setattr(i18n, "_read_catalogue", lambda language: read_po(copy.open("rb"), locale="de"))
    before = copy.read_bytes()
    for bad, why in [
        ({"a string nobody wrote": "x"}, "not in the catalogue"),
        ({"{question}: not yet.": "noch nicht."}, "keep the placeholders ['{question}']"),
        ({"{question}: not yet.": "  "}, "give one text"),
    ]:
        with pytest.raises(ValueError, match=re.escape(why)):
            i18n.fill_catalogue("de", bad)
        assert copy.read_bytes() == before
    assert i18n.fill_catalogue("de", {"{question}: not yet.": "{question}: leider noch nicht."}) == 1
    assert read_po(copy.open("rb"), locale="de").get("{question}: not yet.").string == "{question}: leider noch nicht."


def test_no_marked_literal_hides_inside_an_f_string():
    """babel's extractor does not look inside f-strings: a `_("...")` there would never reach the catalogue
    and would stay English in the German edition without any test noticing."""
    pattern = re.compile(r"""\{\s*(?:_|N_|ngettext|pgettext)\(\s*["']""")
    hidden = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "gamekit").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert hidden == []
