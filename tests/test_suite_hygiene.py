"""The suite's own temp-folder check (tests/conftest.py) fails a session that leaves a `gamekit-*`
entry behind, and passes one that cleans up (issue 30: the grader and lessons 09/10 left folders)."""

from __future__ import annotations

import os
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
