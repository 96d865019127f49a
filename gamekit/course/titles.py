"""The lessons' names, in one list: what students read in the link lists, the edition's start
page, its README and the Moodle course page ("Lesson 4 · Game trees, minimax and alpha-beta").

The notebooks' own title cells are not the source (they are written by hand and drift); a file
not listed here (a teacher's own lesson) is named from its number and its title cell.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..i18n import N_, _

__all__ = ["LESSONS", "START_PAGE", "START_TITLE", "lesson_title", "title_cell_text"]

#: The start page's file name, in the course and in the edition.
START_PAGE = "00-start-here.ipynb"
START_TITLE = N_("Start here")

#: Master notebook stem -> the lesson's name, in the course's order.
LESSONS: dict[str, str] = {
    "01-subtraction-game": N_("Lesson 1 · The subtraction game"),
    "02-red-and-blue-numbers": N_("Lesson 2 · Red and blue numbers, part I"),
    "02-red-blue-part-ii": N_("Lesson 2 · Red and blue numbers, part II"),
    "03-tictactoe-recursion": N_("Lesson 3 · TicTacToe by recursion"),
    "04-game-trees": N_("Lesson 4 · Game trees, minimax and alpha-beta"),
    "05-generalized-nim": N_("Lesson 5 · Generalised Nim: minimax, alpha-beta and memoisation"),
    "06-q-learning-nim": N_("Lesson 6 · Q-learning learns misère Nim"),
    "07-mcts": N_("Lesson 7 · Monte Carlo Tree Search"),
    "08-arena": N_("Lesson 8 · The arena"),
    "09-class-tournament": N_("Lesson 9 · The class tournament, part I"),
    "09-tournament-part-ii": N_("Lesson 9 · The class tournament, part II: is A better than B?"),
    "10-bring-your-own-game": N_("Lesson 10 · Bring your own game"),
}

_PREFIX = re.compile(r"^(?:(?:chapter|lesson|kapitel|lektion)\s+)?\d+\s*(?:[·:.—–-]\s*)?", re.I)


def title_cell_text(path: Path) -> str | None:
    """The first `# heading` of the notebook at `path`, without markup (None if it has none or is unreadable)."""
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "markdown":
                text = "".join(cell.get("source", ""))
                m = re.search(r"^#\s+(.+)$", text, re.M)
                if m:
                    return re.sub(r"[*_`]", "", m.group(1)).strip()[:200]
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    return None


def lesson_title(file_name: str, path: Path | None = None) -> str:
    """The name of the lesson in `file_name` (a master `NN-title.ipynb`, a student copy
    `NN-title-student.ipynb` or the start page): from `LESSONS`, else "Lesson N · <its title cell>";
    in the language in force (gamekit.i18n)."""
    stem = Path(file_name).name.removesuffix(".ipynb").removesuffix("-student")
    if f"{stem}.ipynb" == START_PAGE:
        return _(START_TITLE)
    if stem in LESSONS:
        return _(LESSONS[stem])
    number = re.match(r"^(\d+)-", stem)
    found = title_cell_text(path) if path is not None else None
    title = _PREFIX.sub("", found).strip() if found else stem
    if number is None:
        return found or stem
    return _("Lesson {number} · {title}").format(number=int(number.group(1)), title=title or stem)
