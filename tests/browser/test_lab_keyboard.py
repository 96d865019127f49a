"""The board widgets with the keyboard alone, in JupyterLab in Chromium, and what a screen reader hears.

A throw-away notebook shows TicTacToe, the subtraction game, Nim and the MCTS stepper. Focus is put
on each widget's first control (where Tab from the cell would land); from there only keys are
pressed (Tab, digits, Enter) until the game ends, and after every move the widget's live region
(`[aria-live=polite]`, what a screen reader announces) is read and checked. The controls' names
(what a screen reader says for them) are checked too.
"""

from __future__ import annotations

import re

import browser_support as bs
import nbformat
import pytest
from test_lab_play import run_all  # the same way into JupyterLab

pytestmark = [pytest.mark.browser, pytest.mark.skipif(bs.skip_reason() is not None, reason=str(bs.skip_reason()))]

CELLS = [
    "from gamekit.views.tictactoe import TicTacToePlay\n"
    "TicTacToePlay(players={'first free': lambda: (lambda game, state: game.legal_moves(state)[0])})",
    "from gamekit.views.subtraction import SubtractionPlay\nSubtractionPlay(start=13, opponent='optimal')",
    "from gamekit.views.nim import NimPlay\nNimPlay(piles=(1, 2))",
    "from gamekit import SubtractionGame\nfrom gamekit.views.mcts import MCTSStepper\n"
    "MCTSStepper(SubtractionGame(start=6, moves=(1, 2)))",
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("keys")
    (workdir / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, workdir / "notebooks" / "keys.ipynb")
    with bs.jupyter_lab(workdir) as server:
        yield server, workdir / "notebooks" / "keys.ipynb"


@pytest.fixture(scope="module")
def page(lab):
    server, notebook = lab
    with bs.chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.log = bs.PageLog(page)
        run_all(page, server, notebook)
        yield page
        context.close()


def _output(page, k: int):
    return page.locator(".jp-Notebook .jp-CodeCell").nth(k).locator(".jp-Cell-outputArea")


def _heard(area) -> str:
    return " ".join(area.locator("[aria-live=polite]").all_inner_texts())


def _press_until(page, area, old: str, key: str = "Enter") -> str:
    """Press `key` and wait until the live region says something new; return it."""
    page.keyboard.press(key)
    area.locator("[aria-live=polite]").first.wait_for()
    page.wait_for_function(
        "([el, old]) => [...el.querySelectorAll('[aria-live=polite]')].map(e => e.innerText).join(' ') !== old",
        arg=[area.element_handle(), old],
    )
    return _heard(area)


def test_tictactoe_by_number_keys_to_the_end(page):
    area = _output(page, 0)
    squares = area.locator(".widget-gridbox button")
    assert squares.count() == 9
    assert [squares.nth(i).get_attribute("title") for i in range(9)] == [f"square {i}, empty" for i in range(9)]
    box = area.get_by_label("play square")
    box.focus()
    heard = []
    for square in (4, 1, 7):  # against "first free" (0, then 2): X wins down the middle column
        page.keyboard.type(str(square))
        heard.append(_press_until(page, area, _heard(area)))
        page.wait_for_timeout(200)
    assert heard[0].startswith("You played square 4 (X). first free played square 0 (O). X to move")
    assert heard[1].startswith("You played square 1 (X). first free played square 2 (O). X to move")
    assert heard[2] == "You played square 7 (X). You win!"
    assert squares.nth(0).inner_text().strip() == "O"  # taken squares show their mark as their name


def test_subtraction_game_with_tab_and_enter_to_the_end(page):
    area = _output(page, 1)
    first = area.locator("button", has_text=re.compile("^−3$"))
    names = [area.locator("button", has_text=re.compile(f"^−{d}$")).get_attribute("title") for d in (3, 5, 11)]
    assert names == ["subtract 3 (from 13 to 10)", "subtract 5 (from 13 to 8)", "subtract 11 (from 13 to 2)"]
    n, heard = 13, []
    while True:
        d = next(d for d in (3, 5, 11) if (n - d) % 8 in (0, 1, 2) and n - d >= 0)  # to a red number
        first.focus()
        for _ in range((3, 5, 11).index(d)):
            page.keyboard.press("Tab")
        heard.append(_press_until(page, area, _heard(area)))
        if "Game over" in heard[-1]:
            break
        n = int(re.search(r"Now at (-?\d+)", heard[-1]).group(1))
    assert heard[0].startswith("You subtracted 3. The computer subtracted")
    assert heard[-1].endswith("you won.") and len(heard) <= 4


def test_nim_by_keys_to_the_end(page):
    area = _output(page, 2)
    pile = area.get_by_label("pile", exact=True)

    def move(p: int, t: int) -> str:
        pile.focus()
        page.keyboard.press("Control+A")
        page.keyboard.type(str(p))
        page.keyboard.press("Tab")  # to "take"
        page.keyboard.press("Control+A")
        page.keyboard.type(str(t))
        page.keyboard.press("Tab")  # to the "Take" button
        return _press_until(page, area, _heard(area))

    first = move(2, 1)  # (1, 2) -> (1, 1): the computer must empty a pile, we take the last stick
    said = r"The computer took 1 from pile [12]\. Now pile 1: [01] sticks?, pile 2: [01] sticks?: your move\."
    assert re.fullmatch(said, first), first
    last = move(1 if "pile 1: 1 stick" in first else 2, 1)
    assert last == "Game over: you won."


def test_mcts_stepper_with_enter_through_a_whole_iteration(page):
    area = _output(page, 3)
    button = area.locator("button", has_text="next phase")
    button.focus()
    heard = [_press_until(page, area, _heard(area)) for _ in range(4)]
    assert [h[:16] for h in heard] == ["1 selection: the", "2 expansion: add", "3 rollout: rando", "4 backpropagatio"]
    assert "Iterations so far: 1." in heard[-1]
    page.screenshot(path=str(bs.artifacts() / "lab-keyboard.png"))
    assert page.log.blocked == []
