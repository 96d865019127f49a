"""What a new user meets on a fresh clone: README.md opens as text, the suite shows progress at once."""

import subprocess
import sys

import pytest
from conftest import ROOT


def test_readme_opens_as_markdown_even_with_jupytext():
    """otter-grader installs jupytext, whose contents manager would serve README.md as a notebook."""
    from jupyter_server.services.contents.largefilemanager import LargeFileManager
    from jupytext.sync_contentsmanager import build_sync_jupytext_contents_manager_class

    manager = build_sync_jupytext_contents_manager_class(LargeFileManager)(root_dir=str(ROOT))
    assert manager.get("README.md", content=False)["type"] == "file"
    assert manager.get("notebooks/00-start-here.ipynb", content=False)["type"] == "notebook"


@pytest.mark.slow  # collects the whole suite in a subprocess (seconds): not in the quick loop
def test_fast_tests_run_before_the_notebooks_and_the_browser():
    listed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_notebooks.py",
            "tests/test_slide_budget.py",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    ids = [line for line in listed if "::" in line]
    first_notebook = next(i for i, t in enumerate(ids) if t.startswith("tests/test_notebooks.py"))
    assert ids[:first_notebook] and all(t.startswith("tests/test_slide_budget.py") for t in ids[:first_notebook])
    assert not any(t.startswith("tests/test_slide_budget.py") for t in ids[first_notebook:])


def test_readme_says_build_appears_with_the_first_build_and_gives_chromium_its_own_block():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert "`_build/` appears there with your first build" in setup
    assert "```bash\nsudo apt-get install chromium\n```" in setup
