"""The suite's own checks (tests/conftest.py) fire: the temp-folder check fails a session that leaves a
`gamekit-*` entry behind and passes one that cleans up (issue 30: the grader and lessons 09/10 left
folders), and the fast tier's guard fails a fast test that starts bubblewrap (issue 35)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")


def _session(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    (tmp_path / "conftest.py").write_text(CONFTEST.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "test_one.py").write_text(body, encoding="utf-8")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "test_one.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.slow  # runs a pytest session of its own (seconds): not in the quick loop
def test_a_session_that_leaves_a_gamekit_folder_fails(tmp_path):
    left = _session(tmp_path, "import tempfile\ndef test_x():\n    tempfile.mkdtemp(prefix='gamekit-grade-')\n")
    assert left.returncode != 0 and "left 1 gamekit-* entries" in left.stdout, left.stdout
    clean = _session(
        tmp_path, "import tempfile\ndef test_x():\n    with tempfile.TemporaryDirectory(prefix='gamekit-grade-'):\n"
        "        pass\n"
    )  # fmt: skip
    assert clean.returncode == 0, clean.stdout


def test_a_notebooks_tests_are_one_unit_of_work_and_other_tests_their_own():
    from conftest import work_unit

    ids = [f"tests/test_notebooks.py::{t}[01-subtraction-game]" for t in ("test_a", "test_b", "test_c")]
    assert len({work_unit(i) for i in ids}) == 1
    assert work_unit(ids[0]) != work_unit("tests/test_notebooks.py::test_a[02-red-and-blue-numbers]")
    other, plain = "tests/test_grade.py::test_x[01-subtraction-game]", "tests/test_notebooks.py::test_plain"
    assert work_unit(other) == other and work_unit(plain) == plain
    german = "tests/test_notebooks.py::test_the_german_edition_executes_and_exports[01-subtraction-game]"
    assert work_unit(german) == german  # its own execution: free to run beside the English one
    agreement = [f"tests/test_check_agreement.py::{t}[05-generalized-nim]" for t in ("test_a", "test_b")]
    assert len({work_unit(i) for i in agreement}) == 1 and work_unit(agreement[0]) != work_unit(ids[0])


def test_a_modules_tests_that_share_a_set_up_are_one_unit_of_work():
    """A module-scoped set-up (a JupyterLab server, a sandboxed tournament) runs on one worker only; the
    exceptions name files that exist, and the axe passes stay free to run side by side."""
    from conftest import ROOT, SPLIT_ANYWAY, shared_setup_modules, work_unit

    grouped = shared_setup_modules()
    assert {"tests/browser/test_lab_keyboard.py", "tests/test_tournament.py"} <= grouped
    a, b = "tests/test_tournament.py::test_a", "tests/test_tournament.py::test_b[x]"
    assert work_unit(a) == work_unit(b) != work_unit("tests/test_publish.py::test_a")
    assert all((ROOT / path).is_file() and path not in grouped for path in SPLIT_ANYWAY)
    axe = "tests/browser/test_accessibility_browser.py::"
    assert work_unit(axe + "test_a") != work_unit(axe + "test_b")
    plain = "tests/test_stats.py::test_a"  # no module-scoped fixture: its own unit
    assert "tests/test_stats.py" not in grouped and work_unit(plain) == plain


@pytest.mark.slow  # runs a pytest session of its own with two workers (seconds)
def test_with_two_workers_each_notebooks_tests_run_on_one_worker(tmp_path):
    """The suite's scheduler (conftest.py) keeps a notebook's tests on one worker, so the notebook is
    executed once (xdist's own `load` spreads them, and the cache per worker then executes it twice)."""
    (tmp_path / "conftest.py").write_text(CONFTEST.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_notebooks.py").write_text(
        "import os, pathlib, pytest, time\n"
        "NB = [f'{i:02d}-lesson' for i in range(6)]\n"
        "def record(check, nb):\n"
        "    time.sleep(0.05)\n"
        "    out = pathlib.Path(os.environ['WHERE'])\n"
        "    out.joinpath(f'{check}-{nb}').write_text(os.environ.get('PYTEST_XDIST_WORKER', '-'))\n"
        + "".join(
            f"@pytest.mark.parametrize('nb', NB)\ndef test_{check}(nb):\n    record('{check}', nb)\n"
            for check in ("run", "figures", "alt")
        ),
        encoding="utf-8",
    )

    def workers(dist: list[str]) -> dict[str, set[str]]:
        where = tmp_path / "where"
        where.mkdir()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", *dist, "tests"],
            cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp_path), "WHERE": str(where)},
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-2000:]
        by: dict[str, set[str]] = {}
        for f in where.iterdir():
            by.setdefault(f.name.split("-", 1)[1], set()).add(f.read_text())
        return by

    ours = workers([])
    assert len(ours) == 6 and all(len(w) == 1 for w in ours.values()), ours
    assert set().union(*ours.values()) == {"gw0", "gw1"}, ours  # and the work is shared


BWRAP = shutil.which("bwrap")
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason="no bubblewrap here: the fast tier's guard has nothing to watch")


@needs_bwrap
def test_a_fast_test_that_starts_bubblewrap_is_stopped_naming_the_command():
    """This test is in the fast tier, so the guard watches it: bubblewrap started by its path or by the
    name PATH finds is refused before it runs."""
    for command in (BWRAP, "bwrap"):
        with pytest.raises(AssertionError, match=r"a fast test started bubblewrap \(\S*bwrap \.\.\.\): mark it"):
            subprocess.Popen([command, "--version"], stdout=subprocess.DEVNULL)


@needs_bwrap
@pytest.mark.slow  # runs a pytest session of its own (seconds): not in the quick loop
def test_the_guard_fails_a_fast_test_that_starts_bubblewrap_and_lets_a_slow_one(tmp_path):
    body = (
        "import subprocess, pytest\n"
        "def test_fast():\n    subprocess.run(['bwrap', '--version'], check=True)\n"
        "@pytest.mark.slow\ndef test_slow():\n    subprocess.run(['bwrap', '--version'], check=True)\n"
    )
    run = _session(tmp_path, body)
    assert "1 failed, 1 passed" in run.stdout, run.stdout[-3000:]
    assert "FAILED test_one.py::test_fast" in run.stdout, run.stdout[-3000:]
    assert "a fast test started bubblewrap (bwrap ...): mark it @pytest.mark.slow" in run.stdout, run.stdout[-3000:]
