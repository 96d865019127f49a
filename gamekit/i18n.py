"""The language of the strings code shows to students and teachers: English (the source) or German.

The language is state, never an edited code cell: `set_language("de")` switches every string that
goes through this module, `get_language()` says which one is in force, and the environment variable
`GAMEKIT_LANG` (read when this module is first imported; the German build sets it) chooses the
language a process starts with; without it, a file `edition-language` in the package (a published
German edition has one) does, or a file `.gamekit-language` in the working folder (the German build
writes one beside its student copies and solutions). English is the default, and in English every helper returns the
source string unchanged, so the English edition's output is byte for byte what it was before.

Code marks what a person reads with the helpers of gettext:

    from ..i18n import _, ngettext, pgettext
    _("{question}: not yet.").format(question=name)       # a sentence, placeholders by name
    ngettext("{n} game", "{n} games", n).format(n=n)       # a count
    pgettext("verdict", "correct")                         # a short word that needs its context

Translations live in gettext catalogues kept as text, `gamekit/locale/<lang>/LC_MESSAGES/gamekit.po`
(package data, read at run time with babel; no compiled `.mo` file is kept anywhere). After a
string is added or changed in the code,

    python -m gamekit.i18n extract     # brings every catalogue in step with the code
    python -m gamekit.i18n check       # lists what is untranslated, fuzzy, missing or stale

and the translator fills in the new `msgstr` lines (docs/translation.md). A fuzzy entry (a guess
babel makes for a changed string) is never shown: it counts as untranslated until a person removes
the flag. The language is one setting per process, as gettext's own is: set it before the output
is made, not while another thread makes some.
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import io
import os
import re
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "LANGUAGES",
    "N_",
    "catalogue_path",
    "catalogue_problems",
    "check_messages",
    "extract_messages",
    "fill_catalogue",
    "get_language",
    "notebook_messages",
    "ntr",
    "mark_folder",
    "ngettext",
    "pgettext",
    "set_language",
    "tr",
    "untranslated",
    "update_catalogue",
    "use_language",
]

#: The languages the course speaks; the first is the source language of every string.
LANGUAGES = ("en", "de")
#: The environment variable that chooses the language a process starts with (the German build sets it).
ENVIRONMENT_VARIABLE = "GAMEKIT_LANG"
#: The catalogues' gettext domain (the file name of every catalogue).
DOMAIN = "gamekit"
#: The marking functions the extractor looks for, with babel's description of their arguments.
KEYWORDS: dict[str, Any] = {
    "_": None,
    "N_": None,
    "tr": None,
    "ngettext": (1, 2),
    "ntr": (1, 2),
    "pgettext": ((1, "c"), 2),
}
#: The comments in the code above a marked string that are copied into the catalogue for translators.
COMMENT_TAG = "TRANSLATORS:"

_PACKAGE = Path(__file__).resolve().parent


def _checked(language: object, where: str = "language") -> str:
    """`language` if the course speaks it, else a ValueError that names the allowed ones."""
    if not isinstance(language, str) or language not in LANGUAGES:
        allowed = ", ".join(repr(lang) for lang in LANGUAGES)
        raise ValueError(f"{where} must be one of {allowed}, got {language!r}")
    return language


#: A file in the package that names the language of a published edition (`publish --lang de` writes it into
#: the edition's copy of the package): a student's kernel in the German edition speaks German, no cell edited.
EDITION_FILE = "edition-language"


#: A file in a folder of built notebooks (`--lang de` writes it beside the German student copies and
#: solutions): a kernel started there (its working folder) speaks that language.
FOLDER_FILE = ".gamekit-language"


def _from_environment() -> str:
    """The language a process starts with: GAMEKIT_LANG, else the package's `edition-language` file, else
    a `.gamekit-language` file in the working folder, else English."""
    value = os.environ.get(ENVIRONMENT_VARIABLE, "")
    if value:
        return _checked(value, f"the environment variable {ENVIRONMENT_VARIABLE}")
    for marker in (_PACKAGE / EDITION_FILE, Path.cwd() / FOLDER_FILE):
        try:
            text = marker.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        return _checked(text, f"the file {marker}")
    return LANGUAGES[0]


def mark_folder(folder: str | Path, language: str) -> None:
    """Make kernels started in `folder` speak `language` (a `.gamekit-language` file there; English: none)."""
    marker = Path(folder) / FOLDER_FILE
    if _checked(language) == LANGUAGES[0]:
        marker.unlink(missing_ok=True)
    else:
        Path(folder).mkdir(parents=True, exist_ok=True)
        marker.write_text(language + "\n", encoding="utf-8")


_language: str = _from_environment()


def set_language(language: str) -> None:
    """Show every string that goes through gettext in `language` from now on ("en" or "de")."""
    global _language
    _language = _checked(language)
    if language != LANGUAGES[0]:
        _translations(language)  # a damaged catalogue fails here, not in the middle of a lesson


def get_language() -> str:
    """The language in force: "en" (the default) or "de"."""
    return _language


@contextlib.contextmanager
def use_language(language: str) -> Iterator[None]:
    """`with use_language("de"): ...` shows the strings made inside in `language`, then restores the one before."""
    before = _language
    set_language(language)
    try:
        yield
    finally:
        set_language(before)


def catalogue_path(language: str) -> Path:
    """The text catalogue of `language` inside the package (English, the source, has none)."""
    if _checked(language) == LANGUAGES[0]:
        raise ValueError(f"{LANGUAGES[0]!r} is the source language: its strings are the code's own")
    return _PACKAGE / "locale" / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def _read_catalogue(language: str) -> Any:
    from babel.messages.pofile import read_po

    path = resources.files("gamekit") / "locale" / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as f:
        return read_po(f, locale=language, domain=DOMAIN)


@functools.cache
def _translations(language: str) -> gettext.NullTranslations:
    """gettext's translations of `language`, made in memory from its text catalogue (fuzzy entries left out)."""
    if language == LANGUAGES[0]:
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo

    compiled = io.BytesIO()
    write_mo(compiled, _read_catalogue(language), use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def _(message: str) -> str:
    """`message` in the language in force (unchanged in English or where no translation exists)."""
    return message if _language == LANGUAGES[0] else _translations(_language).gettext(message)


def N_(message: str) -> str:
    """`message` unchanged, marked for the catalogue: a constant translated where it is shown, `_(CONSTANT)`."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the count `n` in the language in force (English: `singular` if n == 1)."""
    if _language == LANGUAGES[0]:
        return singular if n == 1 else plural
    return _translations(_language).ngettext(singular, plural, n)


def tr(message: str) -> str:
    """`_` under the name the lessons' own code cells use (`from gamekit.i18n import tr`): in a notebook, IPython
    and a student's `for _ in ...` would take the name `_` away. `tr("All {n} games").format(n=n)`."""
    return _(message)


def ntr(singular: str, plural: str, n: int) -> str:
    """`ngettext` under the lessons' name: `ntr("after {k} iteration", "after {k} iterations", k).format(k=k)`."""
    return ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """`message` in the language in force, translated within `context` (a short word such as a verdict)."""
    return message if _language == LANGUAGES[0] else _translations(_language).pgettext(context, message)


# --- the catalogues: extracting the code's strings, updating and checking the translations ---------------


def extract_messages(package: str | Path = _PACKAGE) -> Any:
    """A babel catalogue (a template, no translations) of every string the package's code marks with
    `_`, `ngettext` or `pgettext`, each with the files it occurs in and its translators' comments."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    template = Catalog(project="gamekit", domain=DOMAIN, charset="utf-8")
    found = extract_from_dir(str(package), keywords=KEYWORDS, comment_tags=(COMMENT_TAG,), strip_comment_tags=True)
    for filename, lineno, message, comments, context in found:
        location = ("gamekit/" + Path(filename).as_posix(), lineno)  # the catalogue keeps the file only
        before = template.get(message[0] if isinstance(message, tuple) else message, context=context)
        if before is not None:
            before.locations.append(location)
            before.auto_comments.extend(c for c in comments if c not in before.auto_comments)
            continue
        template.add(message, None, [location], auto_comments=comments, context=context)
    notebooks = Path(package).parent / "notebooks"
    if notebooks.is_dir():
        for message, where, comments in notebook_messages(notebooks):  # the lessons' own code cells
            before = template.get(message[0] if isinstance(message, tuple) else message)
            if before is not None:
                before.locations.append((where, 0))
                continue
            template.add(message, None, [(where, 0)], auto_comments=comments)
        comment = "a public check's hint, shown when a student's answer fails the check"
        for hint, where in check_messages(notebooks):  # the public checks' hints, from the masters' test configs
            before = template.get(hint)
            if before is not None:
                before.locations.append((where, 0))
                continue
            template.add(hint, None, [(where, 0)], auto_comments=[comment])
    return template


def notebook_messages(notebooks: Path) -> list[tuple[str | tuple[str, ...], str, list[str]]]:
    """(message, "notebooks/<file>", translators' comments) for every string the masters' code cells in the
    folder `notebooks` mark with `tr` or `ntr` (or `_`): the lessons' own figures, alt texts and printed sentences."""
    import json

    from babel.messages.extract import extract

    found: list[tuple[str | tuple[str, ...], str, list[str]]] = []
    for path in sorted(Path(notebooks).glob("[0-9][0-9]-*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        for cell in cells:
            if cell.get("cell_type") != "code":
                continue
            source = "".join(cell.get("source", ""))
            code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
            marked = extract(
                "python", io.BytesIO(code.encode("utf-8")), KEYWORDS, (COMMENT_TAG,), strip_comment_tags=True
            )
            found += [(message, f"notebooks/{path.name}", list(comments)) for _n, message, comments, _c in marked]
    return found


#: A public check's test config in a master (otter's format): its `failure_message` is shown to students.
_TEST_CONFIG = re.compile(r'^\s*"""\s*#\s*BEGIN TEST CONFIG(.*?)"""\s*#\s*END TEST CONFIG', re.S | re.M)


def check_messages(notebooks: Path) -> list[tuple[str, str]]:
    """(hint, "notebooks/<file>") for every public check's `failure_message` in the masters in the folder
    `notebooks`: the hints a failed check shows (gamekit.course.checks), in the catalogue with the code's strings."""
    import json

    import yaml

    found = []
    for path in sorted(Path(notebooks).glob("[0-9][0-9]-*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        for cell in cells:
            if cell.get("cell_type") != "code":
                continue
            for block in _TEST_CONFIG.findall("".join(cell.get("source", ""))):
                message = (yaml.safe_load(block) or {}).get("failure_message")
                if isinstance(message, str) and message.strip():
                    found.append((message, f"notebooks/{path.name}"))
    return found


def _written(catalogue: Any) -> bytes:
    from babel.messages.pofile import write_po

    out = io.BytesIO()
    write_po(out, catalogue, width=100, include_lineno=False, ignore_obsolete=True)
    return out.getvalue()


def update_catalogue(language: str, template: Any | None = None) -> bool:
    """Bring `language`'s catalogue in step with the code (new strings added untranslated, changed
    ones as fuzzy guesses, strings the code no longer has dropped); True if the file changed."""
    from babel.messages.catalog import Catalog

    path = catalogue_path(language)
    template = extract_messages() if template is None else template
    if path.is_file():
        catalogue = _read_catalogue(language)
    else:
        catalogue = Catalog(locale=language, domain=DOMAIN, project="gamekit", charset="utf-8")
    catalogue.update(template, update_creation_date=False)
    text = _written(catalogue)
    if path.is_file() and path.read_bytes() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    _translations.cache_clear()
    return True


def _key(message: Any) -> tuple[str | None, str]:
    msgid = message.id[0] if isinstance(message.id, tuple) else message.id
    return (message.context, msgid)


def catalogue_problems(language: str) -> list[str]:
    """What keeps `language`'s catalogue from being complete: strings untranslated or fuzzy, strings of
    the code it lacks, and strings it has that the code no longer uses. Empty when all is well."""
    catalogue = _read_catalogue(_checked(language))
    code = {_key(m) for m in extract_messages() if m.id}
    held = {_key(m): m for m in catalogue if m.id}
    run = "(run `python -m gamekit.i18n extract`)"
    problems = [f"missing from the catalogue {run}: {k[1]!r}" for k in code - held.keys()]
    problems += [f"no longer in the code {run}: {k[1]!r}" for k in held.keys() - code]
    for key, message in held.items():
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy:
            problems.append(f"fuzzy (check the translation, then remove the flag): {key[1]!r}")
        elif not all(strings):
            problems.append(f"untranslated: {key[1]!r}")
    return sorted(problems)


_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def untranslated(text: str, language: str = "de", min_chars: int = 16) -> list[str]:
    """The catalogue's English source strings that `text` (a built page or deck of `language`'s edition)
    still shows: every fixed part of a translated message (the text between its placeholders) of at
    least `min_chars` characters and two words that occurs in `text` but differs from its translation.
    Empty for a page whose code-made strings are all in `language`."""
    import html

    plain = html.unescape(text)
    found = []
    for message in _read_catalogue(_checked(language)):
        if not message.id or message.fuzzy:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        german = " ".join(strings)
        for msgid in ids:
            for part in _PLACEHOLDER.split(msgid):
                part = part.strip(" .,:;")
                if len(part) >= min_chars and " " in part and part not in german and part in plain:
                    found.append(part)
    return sorted(set(found))


def fill_catalogue(language: str, translations: dict[str, Any]) -> int:
    """Put `translations` into `language`'s catalogue: {msgid: text}, {singular msgid: [one, more]} for a
    plural, {"context\\x04msgid": text} for a string with a context. Each entry must be a string the catalogue
    has (run `extract` first), keep the source's placeholders and be non-empty; an entry filled in is no
    longer fuzzy. Raises ValueError naming every bad entry, and changes nothing then. Returns how many
    entries it filled."""
    catalogue = _read_catalogue(_checked(language))
    problems, done = [], []
    for key, value in translations.items():
        context, _sep, msgid = key.rpartition("\x04")
        message = catalogue.get(msgid, context=context or None)
        if message is None:
            problems.append(f"not in the catalogue (run `python -m gamekit.i18n extract`): {key!r}")
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        values = tuple(value) if isinstance(value, list) else (value,)
        if len(values) != len(ids) or not all(isinstance(v, str) and v.strip() for v in values):
            problems.append(f"{msgid!r}: give {'[one, more]' if len(ids) > 1 else 'one text'}, not {value!r}")
            continue
        wanted = set(_PLACEHOLDER.findall(ids[-1]))
        if any(set(_PLACEHOLDER.findall(v)) != wanted for v in values):
            problems.append(f"{msgid!r}: the translation must keep the placeholders {sorted(wanted)}")
            continue
        done.append((message, values))
    if problems:
        raise ValueError("; ".join(problems))
    for message, values in done:
        message.string = values if isinstance(message.id, tuple) else values[0]
        message.flags.discard("fuzzy")
    catalogue_path(language).write_bytes(_written(catalogue))
    _translations.cache_clear()
    return len(done)


def main(argv: list[str] | None = None) -> int:
    """`python -m gamekit.i18n extract` updates every catalogue from the code; `check` lists its problems."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m gamekit.i18n", description=main.__doc__)
    parser.add_argument("command", choices=["extract", "check", "fill"])
    parser.add_argument("files", nargs="*", type=Path, help="fill: JSON files {msgid: German} (docs/translation.md)")
    args = parser.parse_args(argv)
    if args.command == "fill":
        import json

        given: dict[str, Any] = {}
        for file in args.files:
            given.update(json.loads(file.read_text(encoding="utf-8")))
        try:
            filled = fill_catalogue("de", given)
            print(f"{filled} entries filled in {catalogue_path('de').relative_to(_PACKAGE.parent)}")
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    failed = False
    for language in LANGUAGES[1:]:
        if args.command == "extract":
            changed = update_catalogue(language)
            print(f"{catalogue_path(language).relative_to(_PACKAGE.parent)}: {'updated' if changed else 'unchanged'}")
        problems = catalogue_problems(language)
        for problem in problems:
            print(f"{language}: {problem}")
        failed = failed or bool(problems)
        if not problems:
            print(f"{language}: every string translated, none fuzzy, in step with the code")
    return 1 if failed and args.command == "check" else 0


if __name__ == "__main__":
    sys.exit(main())
