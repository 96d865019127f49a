"""The board widgets with the keyboard alone, in JupyterLab in Chromium, and what a screen reader hears.

A throw-away notebook shows TicTacToe, the subtraction game, Nim and the MCTS stepper. Each test
selects the widget's cell, leaves edit mode (Escape) and reaches the widget's control with Tab
alone (past the cell's toolbar); from there only keys are pressed (Tab, digits, Enter) until the
game ends, and after every move the widget's live region (`[aria-live=polite]`, what a screen
reader announces) is read and checked. The controls' names (what a screen reader says for them)
are checked too.
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
    # a plain matplotlib figure, and the widgets with pictures, number boxes and lists
    "import matplotlib.pyplot as plt\nimport gamekit.views\n"
    "fig, ax = plt.subplots(figsize=(4, 3))\nax.bar([0, 1, 2], [3, 9, 4])\nplt.show()",
    "from gamekit.views.subtraction import MixedRateExplorer, NumberGraphExplorer\nNumberGraphExplorer(N=20)",
    "MixedRateExplorer(games=20)",
    "from gamekit import TicTacToe\nfrom gamekit.views.mcts import MCTSPlay\nMCTSPlay(TicTacToe(), budget=50)",
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


def _tab_to(page, k: int, name: str) -> int:
    """Click into cell k's code, press Escape (command mode), then Tab until the focus is on the
    cell's control called `name` (a button's text or an input's label); returns how many Tabs it took."""
    page.locator(".jp-Notebook .jp-CodeCell").nth(k).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Escape")
    for presses in range(1, 40):
        page.keyboard.press("Tab")
        here = page.evaluate(
            """([k, name]) => {
                const e = document.activeElement, cell = document.querySelectorAll('.jp-Notebook .jp-CodeCell')[k];
                if (!cell.contains(e)) return false;
                const labels = e.labels ? [...e.labels].map(l => l.innerText.trim()) : [];
                return e.innerText.trim() === name || labels.includes(name);
            }""",
            [k, name],
        )
        if here:
            return presses
    raise AssertionError(f"Tab never reached {name!r} in cell {k}")


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
    assert _tab_to(page, 0, "play square") <= 20  # the toolbar, the nine squares, then the box
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
    names = [area.locator("button", has_text=re.compile(f"^−{d}$")).get_attribute("title") for d in (3, 5, 11)]
    assert names == ["subtract 3 (from 13 to 10)", "subtract 5 (from 13 to 8)", "subtract 11 (from 13 to 2)"]
    n, heard = 13, []
    while True:
        d = next(d for d in (3, 5, 11) if (n - d) % 8 in (0, 1, 2) and n - d >= 0)  # to a red number
        _tab_to(page, 1, f"−{d}")
        heard.append(_press_until(page, area, _heard(area)))
        if "Game over" in heard[-1]:
            break
        n = int(re.search(r"Now at (-?\d+)", heard[-1]).group(1))
    assert heard[0].startswith("You subtracted 3. The computer subtracted")
    assert "you won." in heard[-1] and len(heard) <= 4
    from playwright.sync_api import expect

    for d in (3, 5, 11):  # over: every move button disabled (the widget does so just after it announces the end)
        expect(area.locator("button", has_text=re.compile(f"^−{d}$"))).to_be_disabled(timeout=15_000)


def test_the_subtraction_games_start_box_steps_with_arrows_and_enter(page):
    area = _output(page, 1)  # the start box shows 13 (the game above's start), over or not
    buttons = [area.locator("button", has_text=re.compile(f"^−{d}$")) for d in (3, 5, 11)]
    _tab_to(page, 1, "start")
    box = area.get_by_label("start", exact=True)
    assert box.get_attribute("type") == "number"
    heard = _press_until(page, area, _heard(area), "ArrowUp")  # each step: a new game from the number shown
    assert heard.startswith("New game from 14")
    heard = _press_until(page, area, heard, "ArrowUp")
    assert heard.startswith("New game from 15") and box.input_value() == "15"
    page.wait_for_function("el => !el.disabled", arg=buttons[0].element_handle())
    box.fill("30")  # typed: sent with Enter, no click on "New game"
    heard = _press_until(page, area, heard)
    assert heard.startswith("New game from 30")
    box.fill("500")
    heard = _press_until(page, area, heard)
    assert "start must be a whole number from 1 to 200" in heard and not buttons[0].is_disabled()


def test_nim_by_keys_to_the_end(page):
    area = _output(page, 2)
    assert area.get_by_label("pile", exact=True).count() == 1  # the box is named by its label

    def move(p: int, t: int) -> str:
        _tab_to(page, 2, "pile")
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
    _tab_to(page, 3, "next phase")
    heard = [_press_until(page, area, _heard(area)) for _ in range(4)]
    assert [h[:16] for h in heard] == ["1 selection: the", "2 expansion: add", "3 rollout: rando", "4 backpropagatio"]
    assert "Iterations so far: 1." in heard[-1]
    page.screenshot(path=str(bs.artifacts() / "lab-keyboard.png"))
    assert page.log.blocked == []


def test_live_pictures_have_alt_text_and_every_control_a_name(page):
    """In JupyterLab itself (not only on the built pages): every picture in an output has the alt
    text made from its data, every number box and list is named by its label, and axe-core finds
    no serious or critical violation inside the outputs (JupyterLab's own frame is not ours)."""
    from gamekit.views.alt import FIGURE_KINDS

    images = page.locator(".jp-Notebook .jp-OutputArea-output img")
    alts = [images.nth(i).get_attribute("alt") or "" for i in range(images.count())]
    assert len(alts) >= 4, alts  # the figure, Nim's board, the number graph, the win-rate curve
    wrong = [a for a in alts if not (any(a.startswith(kind) for kind in FIGURE_KINDS) and any(c.isdigit() for c in a))]
    where = [
        images.nth(i).evaluate('e => e.closest(".jp-CodeCell").innerText.slice(0, 80)')
        for i in range(images.count())
        if not alts[i]
    ]
    assert not wrong, (wrong, where)
    figure = _output(page, 4).locator("img")
    assert figure.get_attribute("alt").startswith("Bar chart: 3 bars; the largest is 9")
    for label in ("N", "p", "budget", "play square", "pile", "take"):
        assert page.get_by_label(label, exact=True).count() >= 1, label
    source = bs.axe_source()
    if source is None:
        pytest.skip("npm is not installed, so axe-core cannot be installed")
    found = bs.run_axe(page, source, {"include": [".jp-OutputArea-output"]})
    print("\naxe-core in JupyterLab's outputs:", bs.axe_line("live widgets and figures", found))
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    assert not bad, bad
