"""The repository follows the course conventions: stored notebooks, environment files."""
import re
import tomllib

import nbformat
import pytest

from gamekit.course.nbcheck import notebook_problems

from conftest import NOTEBOOKS, ROOT


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_clean(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert notebook_problems(nb, stored=True) == []


def test_notebooks_exist_and_are_numbered():
    numbers = [int(p.name[:2]) for p in NOTEBOOKS]
    assert numbers, "no notebooks found"
    assert numbers == sorted(set(numbers)) and numbers[0] == 1


def _names(requirements):
    return {re.split(r"[<>=!~\[ ;]", r.strip(), maxsplit=1)[0].lower() for r in requirements}


def test_environment_yml_lists_the_same_packages_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = _names(project["dependencies"]) | _names(project["optional-dependencies"]["course"])
    env_lines = (ROOT / "environment.yml").read_text().splitlines()
    conda = set()
    in_deps = False
    pip_section = []
    for line in env_lines:
        if line.startswith("dependencies:"):
            in_deps = True
            continue
        if in_deps and re.match(r"^\s+- pip:", line):
            pip_section.append(line)
            continue
        m = re.match(r"^\s+- ([A-Za-z0-9_.\-]+)", line)
        if in_deps and m and not line.strip().startswith("- -e") and "pip:" not in line:
            conda.add(m.group(1).lower())
    assert "-e ." in (ROOT / "environment.yml").read_text(), "environment.yml must install gamekit with pip: [-e .]"
    assert any(re.match(r"python\s*=\s*3\.\d+", l.strip("- ").strip()) for l in env_lines), "python must be pinned"
    conda.discard("python")
    conda.discard("pip")
    assert conda == wanted, f"only in environment.yml: {conda - wanted}; only in pyproject: {wanted - conda}"
