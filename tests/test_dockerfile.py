"""The container image for teachers on macOS and Windows (`Dockerfile` at the top).

No container engine runs on the test machines, so the Dockerfile is tested the way a container
would run it: its install step must be README's own install command (they cannot drift apart),
and the slow test runs its steps on a copy of the build context (`git ls-files` minus
`.dockerignore`) in a fresh virtual environment, then uses the tools it installed with the sandbox.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamekit.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(instruction, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), " ".join(rest.split())))
    return found


def readme_install() -> str:
    """README's install command for the course (the first block of "Set up"), without starting JupyterLab."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"```bash\n(python3 -m venv \.venv && [^\n]*)\n```", readme).group(1)
    return command.replace(" && .venv/bin/jupyter lab", "")


def image_install() -> str:
    """README's install as the image runs it: the same extras, non-editable (a wheel is built)."""
    return readme_install().replace("pip install -e ", "pip install ")


def test_the_image_installs_the_course_exactly_as_readme_says():
    runs = [args for word, args in instructions() if word == "RUN"]
    assert image_install() in runs, f"the Dockerfile's install is not README's, non-editable: {image_install()!r}"
    assert any("bubblewrap" in r for r in runs), "the image must install Debian's bubblewrap"
    users = [args for word, args in instructions() if word == "USER"]
    assert users and users[-1] != "root", "students' code must not run as root in the image"
    # bubblewrap's refusal and the start page send macOS and Windows teachers to README's "Running in a
    # container", which points to the guide that holds the image's commands
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Running in a container" in readme and "docs/setup.md#running-in-a-container" in readme
    setup = (ROOT / "docs" / "setup.md").read_text(encoding="utf-8")
    container = setup.split("## Running in a container", 1)[1].split("\n## ", 1)[0]
    assert "docker build -t gamekit ." in container and "seccomp=unconfined" in container


def _context() -> list[str]:
    """The files `docker build .` sends: the repository's files minus `.dockerignore`."""
    ignored = [p.strip() for p in (ROOT / ".dockerignore").read_text().splitlines() if p.strip()]
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()

    def dropped(path: str) -> bool:
        parts = path.split("/")
        for pattern in ignored:
            bare = pattern.removeprefix("**/")
            if fnmatch.fnmatch(path, pattern) or any(fnmatch.fnmatch(p, bare) for p in parts):
                return True
            if path.startswith(pattern.rstrip("/") + "/"):
                return True
        return False

    return [f for f in files if not dropped(f)]


@pytest.mark.notebook
@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_the_images_steps_install_tools_that_run_students_code_in_the_sandbox(tmp_path):
    """Copy the build context, run the Dockerfile's install step there (a fresh venv, the project
    built as a wheel and installed non-editable), and use the installed tools: the tournament
    validates an agent in bubblewrap's sandbox; the course's CLI and grade answer --help."""
    home = tmp_path / "context"
    for name in _context():
        target = home / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    assert not (home / ".venv").exists() and not (home / "_build").exists()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = f"{home / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    # the same packages, without compiling their .py files ahead (Python compiles what it imports): a
    # third of the step's time on the test machine, and nothing this test uses
    env["PIP_NO_COMPILE"] = "1"
    install = image_install().replace("python3", shlex.quote(sys.executable), 1)
    done = subprocess.run(install, shell=True, cwd=home, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    python = str(home / ".venv" / "bin" / "python")
    where = subprocess.run(
        [python, "-c", "import gamekit, gamekit.sandbox; print(gamekit.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert where.returncode == 0, where.stderr[-1000:]
    assert "site-packages" in where.stdout and "/context/gamekit/" not in where.stdout, where.stdout
    for args in (
        ["-m", "gamekit.tournament", "--help"],
        ["-m", "gamekit.course", "--help"],
        ["-m", "gamekit.course", "grade", "--help"],
    ):
        ran = subprocess.run([python, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0 and "usage" in ran.stdout, ran.stderr[-1000:]
    if bwrap_path() is None:
        pytest.skip("bubblewrap is not installed: the sandboxed validation cannot run")
    agent = tmp_path / "first_free.py"
    shutil.copy(ROOT / "tests" / "tournament_agents" / "first_free.py", agent)
    ran = subprocess.run(
        [python, "-m", "gamekit.tournament", "validate", str(agent), "--game", "nim"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0 and "accepted" in ran.stdout, ran.stdout + ran.stderr[-1000:]
