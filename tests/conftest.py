import os
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
