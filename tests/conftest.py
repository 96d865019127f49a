import functools
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
ARTIFACTS = Path(os.environ.get("GAMEKIT_TEST_ARTIFACTS") or ROOT / "test-artifacts")  # elsewhere for a non-root run

# Library tests draw figures without a screen.
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def _tier(item) -> int:
    """0 fast tests, 1 notebook tests, 2 browser tests."""
    return 2 if item.get_closest_marker("browser") else 1 if item.get_closest_marker("notebook") else 0


def pytest_collection_modifyitems(config, items):
    """Fast tests first, then the notebooks, then the browser: the run shows progress from the start."""
    items.sort(key=_tier)  # stable: the order inside each tier stays as written


# --- one worker per notebook -----------------------------------------------------------------------
# tests/test_notebooks.py executes each notebook once per worker and keeps it for that notebook's
# other tests. pytest-xdist's `loadgroup` would keep them together, but with pytest 9.2 its group names
# no longer reach the scheduler, so the suite schedules its own way: each notebook's tests are one unit
# of work, every other test a unit of its own, in the order collected (fast tests first).
# tests/test_check_agreement.py runs each chapter in-process once for its two tests: one unit per chapter too.
_PER_NOTEBOOK = re.compile(r"^tests/(?P<file>test_notebooks|test_check_agreement)\.py::\w+\[(?P<notebook>[^\]]+)\]$")


# A module whose tests share a set-up of module or class scope (a JupyterLab server, a sandboxed
# tournament, an assigned copy, a Dask cluster) is one unit too: a set-up of seconds ran once per worker
# when its tests were spread over both (about 40 s of the whole suite). Found by reading the test files,
# so a new module with such a fixture is grouped without a list to keep; except these, with the reason:
SPLIT_ANYWAY = {
    "tests/browser/test_accessibility_browser.py": "two axe passes of about 100 s each: as one unit, the "
    "other worker would wait idle at the end of the run",
    "tests/test_check_agreement.py": "one unit per chapter already (the chapter's run is what its tests share)",
}
_SHARED_SCOPE = re.compile(r"""scope\s*=\s*["'](?:module|class)["']""")


@functools.cache
def shared_setup_modules() -> frozenset[str]:
    """The test modules (paths from the checkout's top) with a fixture of module or class scope, less
    `SPLIT_ANYWAY`."""
    found = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if _SHARED_SCOPE.search(path.read_text(encoding="utf-8"))
    }
    return frozenset(found - set(SPLIT_ANYWAY))


def work_unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its notebook's for tests/test_notebooks.py (and its chapter's for
    tests/test_check_agreement.py), its module's where the module's tests share a set-up, else its own."""
    module = nodeid.split("::", 1)[0]
    if module in shared_setup_modules():
        return f"module {module}"
    found = _PER_NOTEBOOK.match(nodeid)
    if not found or "german_edition" in nodeid:  # the German edition runs on its own: another worker may take it
        return nodeid
    return f"notebook {found['notebook']}" if found["file"] == "test_notebooks" else f"agreement {found['notebook']}"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "load":  # an explicit --dist keeps xdist's own scheduler
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByNotebook(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

        def _pending_of(self, workload: dict[str, dict[str, bool]]) -> int:
            # xdist counts over every unit a worker ever had, on every report: quadratic in the suite's
            # 1,900 units (the fast tier took 74 s instead of 50). A worker runs its units in the order
            # given, so the unfinished ones are the last: count back to the first finished unit.
            pending = 0
            for unit in reversed(workload.values()):
                left = sum(not done for done in unit.values())
                if not left:
                    break
                pending += left
            return pending

    config.option.loadscopereorder = False  # keep the collection order: fast tests first
    return ByNotebook(config, log)


# --- nothing left in the temp folder -----------------------------------------------------------
# The suite runs with a temp folder of its own (TMPDIR, inherited by every kernel, sandbox, grader
# and tournament it starts), so what they leave behind is seen here and not mixed up with other
# jobs on the machine. A `gamekit-*` entry left there at the end fails the session.

#: Fixed-name caches that are meant to stay (one per machine, reused; not one per run).
KEPT_IN_TMP = {"gamekit-hypothesis"}
_SUITE_TMP: Path | None = None


def pytest_configure(config):
    global _SUITE_TMP
    _SUITE_TMP = Path(tempfile.mkdtemp(prefix="gk-suite-"))
    os.environ["TMPDIR"] = str(_SUITE_TMP)
    tempfile.tempdir = str(_SUITE_TMP)


def gamekit_leftovers(folder: Path) -> list[str]:
    """The `gamekit-*` entries in `folder` that are not deliberate caches."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("gamekit-") and p.name not in KEPT_IN_TMP)


@pytest.fixture(scope="session", autouse=True)
def no_gamekit_leftovers_in_the_temp_folder():
    """Fails the session if the suite leaves a new `gamekit-*` entry in the temp folder."""
    yield
    if _SUITE_TMP is not None and _SUITE_TMP.is_dir():
        left = gamekit_leftovers(_SUITE_TMP)
        if left:
            pytest.fail(f"the suite left {len(left)} gamekit-* entries in the temp folder {_SUITE_TMP}: {left[:10]}")


def pytest_sessionfinish(session, exitstatus):
    """Remove the suite's temp folder after a passing run (a failing run keeps it to look at)."""
    if _SUITE_TMP is not None and exitstatus == 0:
        shutil.rmtree(_SUITE_TMP, ignore_errors=True)


#: Markers of the tiers that may start the sandbox; a test with none of them is in the fast tier.
SLOW_MARKERS = ("slow", "notebook", "browser")
#: The test being run (its setup, with the fixtures it is the first to need, its call and teardown) is fast.
_RUNNING_FAST = [False]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _RUNNING_FAST[0] = not any(item.get_closest_marker(m) for m in SLOW_MARKERS)
    try:
        yield
    finally:
        _RUNNING_FAST[0] = False


def _guard_fast_tier() -> None:
    """The fast tier (`-m "not notebook and not browser and not slow"`) starts no bubblewrap: a fast
    test (or a fixture it is the first to need) that does fails, naming the command, so the tier
    stays fast by construction (mark the test `slow` if it must run the sandbox). The one-off check
    that bubblewrap works here (`require_bwrap`: an empty box running /bin/true) is allowed."""
    import subprocess

    found = shutil.which("bwrap")
    if found is None:
        return
    bwrap = os.path.realpath(found)
    real = subprocess.Popen.__init__

    def guarded(self, args, *rest, **kwargs):
        if _RUNNING_FAST[0]:
            argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
            words = [os.fsdecode(a) for a in argv if isinstance(a, (str, bytes, os.PathLike))]
            named = [w if os.sep in w else shutil.which(w) or w for w in words if w.endswith("bwrap")]  # PATH's too
            if words[-1:] != ["/bin/true"] and any(os.path.realpath(w) == bwrap for w in named):
                raise AssertionError(f"a fast test started bubblewrap ({words[0]} ...): mark it @pytest.mark.slow")
        return real(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = guarded  # type: ignore[method-assign]


_guard_fast_tier()


# --- the language a test found -------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _language_afterwards():
    """Every test leaves the process in the language it found (English in the suite): a test that sets
    German (gamekit.i18n.set_language) cannot make a later one on the same worker German."""
    from gamekit.i18n import get_language, set_language

    before = get_language()
    yield
    set_language(before)
