"""The repository follows the course conventions: stored notebooks, environment files."""

import re
import subprocess
import sys

import nbformat
import pytest
import tomllib
from conftest import NOTEBOOKS, ROOT

from gamekit.course.nbcheck import notebook_problems
from gamekit.course.tidy import metadata_problems, tidy_notebook

FIXTURE = ROOT / "tests" / "fixtures" / "99-fixture.ipynb"
STORED = [*NOTEBOOKS, FIXTURE]


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_notebook_is_stored_clean(path):
    """No outputs, slide metadata on every cell, and (chapters) otter's exercise format."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert notebook_problems(nb, stored=True, chapter=not path.name.startswith("00-")) == []


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_notebook_is_stored_with_the_kernels_metadata(path):
    """Opening the notebook must not mark it modified: `python -m gamekit.course tidy` fixes this."""
    nb = nbformat.read(path, as_version=4)
    assert metadata_problems(nb) == [], "run `python -m gamekit.course tidy`"


def test_tidy_sets_the_kernel_metadata_and_strips_outputs():
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("1", execution_count=3, outputs=[nbformat.v4.new_output("stream", text="1")])],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}, "language_info": {"name": "python"}},
    )
    nb.metadata["widgets"] = {"state": {}}
    assert len(metadata_problems(nb)) == 3
    tidy = tidy_notebook(nb)
    assert metadata_problems(tidy) == [] and tidy.cells[0].outputs == [] and tidy.cells[0].execution_count is None
    assert nb.cells[0].outputs, "tidy works on a copy"
    assert tidy_notebook(tidy) == tidy


def test_notebooks_exist_and_are_numbered():
    numbers = [int(p.name[:2]) for p in NOTEBOOKS]
    assert numbers, "no notebooks found"
    # in order, none missing; a lesson in two parts shares its number (02: part I and part II)
    assert numbers == sorted(numbers) and sorted(set(numbers)) == list(range(numbers[0], numbers[-1] + 1))
    assert numbers[0] in (0, 1) and max(numbers.count(n) for n in numbers) <= 2
    assert (ROOT / "notebooks" / "00-start-here.ipynb").is_file(), "the start page for students"


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


def _readme_commands(title: str) -> list[str]:
    """The steps (split at &&) of the bash block under the bold `title` in README's Set up section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"\*\*" + re.escape(title) + r"\*\*.*?```bash\n(.*?)```", setup, re.S)
    assert block, f"README's Set up section has no bash block under **{title}**"
    return [step.strip() for step in block.group(1).strip().split("&&")]


def test_readme_install_and_test_commands_are_what_ci_runs():
    steps = _readme_commands("Run the tests")
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    install = [s for s in steps if " install " in s]
    tests = [s for s in steps if "pytest" in s]
    assert install and tests, f"README's test block lacks an install or a pytest step: {steps}"
    for step in install + tests:
        command = step.replace(".venv/bin/", "")  # CI activates its venv instead
        assert command in ci_lines, f"README says `{step}` but .ci/run has no line `{command}`"
    assert any(s.startswith("python3 -m venv") for s in steps)
    # and nothing a newcomer's run lacks: no npm install, no build step before the tests
    commands = [line for line in ci_lines if line and not line.startswith("#")]
    extra = [line for line in commands if "npm" in line or "gamekit.course" in line]
    assert extra == [], f".ci/run prepares what README's commands do not: {extra}"


def test_the_teaching_guide_documents_the_course_build_commands():
    teaching = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")
    for command in ("slides", "html", "assets", "assign", "grade", "solutions", "tidy"):
        assert f"python -m gamekit.course {command}" in teaching, f"docs/teaching.md lacks `{command}`"
    for name, text in _documentation().items():
        assert "handouts" not in text, f"{name}: handouts were replaced by assign (otter-grader)"
    setup = (ROOT / "docs" / "setup.md").read_text(encoding="utf-8")
    assert "environment.yml" in setup and "Binder" in setup and not (ROOT / "binder").exists()


def test_reading_a_notebook_builds_no_grammar_parser():
    """Every otter run, notebook run and nbconvert export reads notebooks: with jsonschema 4.25 or newer
    and rfc3987-syntax installed, `import nbformat` builds 38 lark parsers first (1.5 s of CPU per
    process). pyproject.toml pins jsonschema below 4.25; this fails if that pin is lost."""
    code = "import sys, nbformat, jsonschema; print(sorted(m for m in ('lark', 'rfc3987_syntax') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]", f"importing nbformat loaded {done.stdout.strip()}: see pyproject.toml"


def test_every_package_of_gamekit_is_in_the_distribution():
    """A wheel carries only the packages pyproject lists: a folder of gamekit/ left out (the sandbox
    once was) is missing from every non-editable install, and the tournament fails at import there."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "gamekit").rglob("__init__.py")} | {
        "gamekit.data"
    }
    assert found - listed == set(), f"packages missing from pyproject.toml's list: {sorted(found - listed)}"
    assert listed - found == set(), f"pyproject.toml lists packages that do not exist: {sorted(listed - found)}"


def test_the_tournament_guide_names_every_short_name_of_the_registry():
    """The tournament guide's list of games is the registry's (gamekit/games/registry.py)."""
    from gamekit.games.registry import tournament_names

    guide = (ROOT / "docs" / "tournament.md").read_text(encoding="utf-8")
    games = guide.split("## Games", 1)[1].split("\n## ", 1)[0]
    missing = [name for name in tournament_names() if f"`{name}`" not in games]
    assert missing == [], f"docs/tournament.md, section Games, does not name the tournament's games {missing}"


def _documentation() -> dict[str, str]:
    """README, the guides in docs/ and the benchmarks' README, by their paths from the top folder."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in paths}


def _without_fences(text: str) -> str:
    """Markdown without its fenced blocks, where a `# comment` is no heading and a bracket no link."""
    return re.sub(r"^( *)```.*?^\1```", "", text, flags=re.S | re.M)


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives a file's headings: the text without its markup, lower case, punctuation
    dropped, spaces as hyphens; a repeated heading numbered (-1, -2, ...)."""
    seen: dict[str, int] = {}
    for title in re.findall(r"^#{1,6} +(.+?) *$", _without_fences(text), re.M):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        seen[slug] = seen.get(slug, -1) + 1
        if seen[slug]:
            seen[f"{slug}-{seen[slug]}"] = 0
    return set(seen)


def test_readme_is_one_or_two_screens():
    """README says what the course is, the two set-up commands, where to start, the lessons and one line
    per guide; everything else belongs in a guide in docs/ (docs/authoring.md, "The documentation")."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 150, f"README.md has {lines} lines: move the details into a guide in docs/"


def test_every_relative_link_of_the_documentation_reaches_its_file_and_heading():
    broken = []
    for name, text in _documentation().items():
        here = (ROOT / name).parent
        prose = re.sub(r"`[^`\n]*`", "", _without_fences(text))  # inline code holds no link
        for target in re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+:", target):  # https:, mailto: and the like
                continue
            path, _, anchor = target.partition("#")
            file = (here / path).resolve() if path else ROOT / name
            if not file.exists() or ROOT not in file.parents:
                broken.append(f"{name}: {target} (no such file in the repository)")
            elif anchor and (file.suffix != ".md" or anchor not in _anchors(file.read_text(encoding="utf-8"))):
                broken.append(f"{name}: {target} (no such heading)")
    assert broken == [], broken


def test_every_guide_links_back_to_readme_and_readme_lists_every_guide():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    guides = readme.split("## Guides", 1)[1].split("\n## ", 1)[0]
    for name, text in _documentation().items():
        if name != "README.md":
            opening = text.split("\n## ", 1)[0]
            assert "(../README.md)" in opening, f"{name} does not link back to README before its first section"
            assert f"]({name})" in guides, f"README's Guides have no line for {name}"
