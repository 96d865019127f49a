"""Students' way in: JupyterLab in a real browser runs a whole notebook, and the play widgets answer clicks.

JupyterLab runs on 127.0.0.1 in a throw-away copy of notebooks/ and data/; Chromium opens a
notebook, runs all cells, and plays one move. Every request that would leave the machine is
blocked. Screenshots land in test-artifacts/browser/.
"""

import re
import shutil

import browser_support as bs
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.skipif(bs.skip_reason() is not None, reason=str(bs.skip_reason()))]

# Wait until every non-empty code cell has run and the kernel is idle; report the first error.
ALL_CELLS_RAN = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    for (const cell of panel.content.widgets) {
        if (cell.model.type !== 'code') continue;
        const outputs = cell.model.outputs.toJSON();
        const error = outputs.find(o => o.output_type === 'error');
        if (error) return 'error: ' + error.ename + ': ' + error.evalue;
    }
    if (!kernel || kernel.status !== 'idle') return false;
    const pending = panel.content.widgets.filter(c => c.model.type === 'code'
        && c.model.sharedModel.getSource().trim() !== '' && c.model.executionCount === null);
    return pending.length === 0 ? 'done' : false;
}"""


DIAGNOSE = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    const pending = [];
    panel.content.widgets.forEach((c, i) => {
        if (c.model.type === 'code' && c.model.sharedModel.getSource().trim() !== ''
            && c.model.executionCount === null) pending.push(i);
    });
    return {kernel: kernel ? kernel.status : 'none', pending: pending.slice(0, 10),
            cells: panel.content.widgets.length};
}"""


def _notebook(prefix: str, widget: str):
    paths = sorted((bs.ROOT / "notebooks").glob(f"{prefix}-*.ipynb"))
    if not paths:
        pytest.skip(f"notebook {prefix} does not exist yet, so its {widget} widget cannot be played")
    if widget not in paths[0].read_text(encoding="utf-8"):
        pytest.skip(f"notebook {paths[0].name} does not show the {widget} widget yet")
    return paths[0]


#: The folder JupyterLab serves (a throw-away copy of the course), set by the `lab` fixture.
WORKDIR = {}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    workdir = bs.copy_course(tmp_path_factory.mktemp("lab"))
    WORKDIR["path"] = workdir
    with bs.jupyter_lab(workdir) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    with bs.chromium() as b:
        yield b


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.log = bs.PageLog(page)
    yield page
    context.close()


def run_all(page, lab, notebook, timeout_ms=120_000):
    """Open `notebook` in JupyterLab, run all cells, and wait for the kernel to finish."""
    base, token = lab
    page.goto(f"{base}/lab/tree/notebooks/{notebook.name}?reset&token={token}")
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.sessionContext && w.context.path.endsWith(name); }",
        arg=notebook.name,
    )
    page.evaluate("""async () => {
        const panel = window.jupyterapp.shell.currentWidget;
        await panel.context.ready;
        await panel.sessionContext.ready;
    }""")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    try:
        result = page.wait_for_function(ALL_CELLS_RAN, timeout=timeout_ms, polling=500).json_value()
    except Exception:
        page.screenshot(path=str(bs.artifacts() / f"lab-{notebook.stem}-timeout.png"))
        raise AssertionError(f"{notebook.name} did not finish in JupyterLab: {page.evaluate(DIAGNOSE)}") from None
    assert result == "done", f"{notebook.name} in JupyterLab: {result}"


def widget_root(button):
    """The widget's outer box: the nearest VBox around one of its buttons."""
    return button.locator(
        "xpath=ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' widget-vbox ')][1]"
    )


def test_subtraction_game_course_graph_grows(page, lab):
    notebook = _notebook("01", "SubtractionPlay")
    run_all(page, lab, notebook)
    move = page.locator("button.widget-button", has_text=re.compile("^−3$")).first
    root = widget_root(move)
    root.scroll_into_view_if_needed()
    root.locator("button.widget-button", has_text="New game").click()
    page.wait_for_timeout(500)
    graph = root.locator(".widget-html img[alt]").first  # a Picture: an <img> with its alt text
    before_src = graph.get_attribute("src")
    before_height = graph.evaluate("img => img.naturalHeight")
    assert graph.get_attribute("alt").startswith("Graph (you vs computer")
    root.screenshot(path=str(bs.artifacts() / "lab-01-subtraction-before.png"))

    move.click()
    page.wait_for_function(  # the picture's HTML is replaced: look up the <img> afresh
        "([root, old]) => { const img = root.querySelector('.widget-html img[alt]');"
        " return img && img.getAttribute('src') !== old && img.complete; }",
        arg=[root.element_handle(), before_src],
    )
    assert "You subtracted 3" in root.inner_text()
    after_height = graph.evaluate("img => img.naturalHeight")
    assert after_height > before_height, "the course graph did not grow after a move"
    root.screenshot(path=str(bs.artifacts() / "lab-01-subtraction-after.png"))
    page.screenshot(path=str(bs.artifacts() / "lab-01-page.png"))


def test_tictactoe_computer_answers(page, lab):
    notebook = _notebook("03", "TicTacToePlay")
    run_all(page, lab, notebook)
    grid = page.locator(".widget-gridbox").filter(has=page.locator("button.widget-button")).first
    squares = grid.locator("button.widget-button")
    assert squares.count() == 9
    root = widget_root(squares.first)
    root.scroll_into_view_if_needed()
    root.locator("button.widget-button", has_text="new game").click()
    page.wait_for_timeout(500)

    def marks():
        return [squares.nth(i).inner_text().strip() for i in range(9)]

    before = marks()
    empty = before.index("")
    squares.nth(empty).click()
    page.wait_for_function(
        "(grid) => [...grid.querySelectorAll('button')].filter(b => b.innerText.trim()).length"
        f" >= {sum(1 for m in before if m) + 2}",
        arg=grid.element_handle(),
    )
    after = marks()
    assert after[empty] != "", "the clicked square shows no mark"
    assert sum(1 for m in after if m) == sum(1 for m in before if m) + 2, "the computer did not answer"
    assert "played square" in root.inner_text()
    root.screenshot(path=str(bs.artifacts() / "lab-03-tictactoe.png"))
    page.screenshot(path=str(bs.artifacts() / "lab-03-page.png"))


def test_start_page_opens_unmodified_and_runs(page, lab):
    """Opening a notebook stored as the kernel writes it (python -m gamekit.course tidy) leaves it
    unmodified: no "Save your work?" for a notebook the student never touched."""
    notebook = bs.ROOT / "notebooks" / "00-start-here.ipynb"
    if not notebook.is_file():
        pytest.skip("no start page yet")
    base, token = lab
    page.goto(f"{base}/lab/tree/notebooks/{notebook.name}?reset&token={token}")
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.sessionContext && w.context.path.endsWith(name); }",
        arg=notebook.name,
    )
    page.evaluate("""async () => {
        const panel = window.jupyterapp.shell.currentWidget;
        await panel.context.ready;
        await panel.sessionContext.ready;
        const kernel = panel.sessionContext.session.kernel;
        await kernel.info;
    }""")
    page.wait_for_timeout(2000)  # the kernel's language_info reaches the notebook's metadata
    dirty = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
    page.screenshot(path=str(bs.artifacts() / "lab-00-start-here.png"))
    assert dirty is False, "the start page opens as modified: its stored metadata differs from the kernel's"
    run_all(page, lab, notebook)
    assert "Everything is in place." in page.locator(".jp-OutputArea-output").first.inner_text()


def test_student_checks_an_answer_and_gets_a_hint_not_the_answer(page, lab):
    """A student copy (python -m gamekit.course assign) in JupyterLab: a wrong answer to 99.1 gets
    the public check's hint, and neither the check nor anything else on the page shows the answer."""
    import sys

    sys.path.insert(0, str(bs.ROOT / "tests" / "fixtures"))
    from assigned import assigned_fixture

    student = assigned_fixture().student
    target = WORKDIR["path"] / "student" / student.name
    target.parent.mkdir(exist_ok=True)
    shutil.copyfile(student, target)
    base, token = lab
    page.goto(f"{base}/lab/tree/student/{student.name}?reset&token={token}")
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.sessionContext && w.context.path.endsWith(name); }",
        arg=student.name,
    )
    page.evaluate("""async () => {
        const panel = window.jupyterapp.shell.currentWidget;
        await panel.context.ready;
        await panel.sessionContext.ready;
        const cell = panel.content.widgets.find(c => c.model.sharedModel.getSource().startsWith('answer_99_1 ='));
        cell.model.sharedModel.setSource('answer_99_1 = [5, 7]');
    }""")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    result = page.wait_for_function(ALL_CELLS_RAN, timeout=120_000, polling=500).json_value()
    assert result == "done", result
    check = page.evaluate("""() => {
        const panel = window.jupyterapp.shell.currentWidget;
        const cell = panel.content.widgets.find(c => c.model.sharedModel.getSource().includes('grader.check("q99_1")'));
        cell.node.scrollIntoView();
        return cell.node.innerText;
    }""")
    page.wait_for_timeout(500)
    page.screenshot(path=str(bs.artifacts() / "lab-student-check.png"))
    assert "answer_99_1 should be a list of moves, each 3, 5 or 11" in check
    text = page.locator(".jp-Notebook").inner_text()
    assert "[3, 11]" not in text and "SubtractionGame(12).initial_state()" not in text, "the answer is on the page"
