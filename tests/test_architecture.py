"""The package's architecture, enforced: layers, no import cycles, no identity-keyed caches.

The layers (COURSE.md), each importing only its own layer or the ones below it:

    protocol, wire, jsonio, data, i18n  ->  games/  ->  algorithms  ->  sources/, testing
        ->  sandbox/  ->  tournament/  ->  views/  ->  course/

The sandbox package (the boundary around students' code) imports nothing of the games, the
algorithms, the tournament or the course: its zygote runs an entry point it is given by name.

Algorithms know games only through the protocol: no algorithm imports or names a specific game.
A cache is keyed by a value that determines the answer, never by `id()` or `repr()`.

One name for one thing: every `__all__` names what its module has, no object is exported under
two names, and no old module name comes back; every file of the package that is not Python
(the build's templates) is package data, so a wheel carries it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "gamekit"


def _game_classes() -> dict[str, str]:
    """Every class a module of gamekit/games/ defines (the games, their states, their number theory),
    name -> module: no algorithm may name one. Read from the source, so a new game module is covered
    the moment it exists."""
    found = {}
    for path in sorted((PACKAGE / "games").glob("*.py")):
        if path.stem in ("__init__", "registry"):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found[node.name] = f"gamekit.games.{path.stem}"
    return found


GAME_NAMES = set(_game_classes())
PROTOCOL = {"initial_state", "to_move", "legal_moves", "play", "is_terminal", "utility"}
FOUNDATION = {"gamekit", "gamekit.protocol", "gamekit.wire", "gamekit.jsonio", "gamekit.data", "gamekit.i18n"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> int:
    if module in FOUNDATION:
        return 0
    sub = module.split(".")[1]
    layers = {"games": 1, "sources": 3, "testing": 3, "sandbox": 4, "tournament": 5, "views": 6}
    return {**layers, "course": 7}.get(sub, 2)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
MODULES["gamekit.data"] = ROOT / "data" / "__init__.py"


def imports(path: Path, module: str, top_level_only: bool) -> set[str]:
    """The gamekit modules `module` imports (resolving relative imports)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("gamekit")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("gamekit"):
                continue
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                found.add(candidate if candidate in MODULES else target)
    return {m for m in found if m in MODULES and m != module}


def test_the_module_list_is_complete():
    assert {"gamekit.protocol", "gamekit.solve", "gamekit.search", "gamekit.testing"} <= set(MODULES)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "gamekit"))
def test_a_module_imports_only_its_own_layer_or_lower(module):
    mine = layer(module)
    above = sorted(m for m in imports(MODULES[module], module, False) if m != "gamekit" and layer(m) > mine)
    assert not above, f"{module} (layer {mine}) imports higher layers: {above}"
    if mine == 1:  # a game knows the protocol, nothing else of gamekit
        others = sorted(m for m in imports(MODULES[module], module, False) if layer(m) not in (0,) and m != module)
        others = [m for m in others if m.split(".")[1] != "games"]
        assert not others, f"{module} is a game but imports {others}"


# A cycle allowed on purpose would be listed here (module, module it imports); there is none.
KNOWN_CYCLES: set[tuple[str, str]] = set()


def test_no_import_cycles_between_modules():
    """No cycle, also through imports inside functions (a lazy import hides a cycle, it does not remove it)."""
    graph = {m: imports(p, m, False) - {"gamekit"} for m, p in MODULES.items() if m != "gamekit"}
    for a, b in KNOWN_CYCLES:
        graph.get(a, set()).discard(b)
    # a package's __init__ re-exporting its own modules is not a cycle of meaning
    for m in graph:
        graph[m] = {d for d in graph[m] if not (m.startswith(d + ".") and d != m)}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(m: str, stack: list[str]) -> bool:
        state[m] = 1
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                cycle.extend([*stack[stack.index(d) :], d] if d in stack else [m, d])
                return True
            if d not in state and visit(d, [*stack, d]):
                return True
        state[m] = 2
        return False

    for m in sorted(graph):
        if m not in state and visit(m, [m]):
            break
    assert not cycle, f"import cycle: {' -> '.join(cycle)}"


ALGORITHMS = sorted(m for m in MODULES if layer(m) == 2)


@pytest.mark.parametrize("module", ALGORITHMS)
def test_no_algorithm_imports_or_names_a_specific_game(module):
    path = MODULES[module]
    games = sorted(m for m in imports(path, module, False) if layer(m) == 1)
    assert not games, f"{module} imports the games {games}: pass a game's specifics as arguments"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in GAME_NAMES})
    assert not named, f"{module} names the games {named}"
    fields = sorted(
        {f".{n.attr}" for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in {"piles", "n", "board"}}
    )
    assert not fields, f"{module} reads game-specific state fields {fields}"


def _identity_keys(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("id", "repr")):
            continue
        if node.func.id == "id":
            found.append(f"line {node.lineno}: id(...)")
            continue
        parent = parents.get(node)
        keyed = (
            isinstance(parent, ast.Subscript)
            and parent.slice is node
            or isinstance(parent, ast.Compare)
            and any(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
            or isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Attribute)
            and parent.func.attr in ("get", "setdefault", "pop")
            and parent.args
            and parent.args[0] is node
            or isinstance(parent, ast.Assign)
            and any(isinstance(t, ast.Name) and "key" in t.id.lower() for t in parent.targets)
        )
        if keyed:
            found.append(f"line {node.lineno}: repr(...) used as a key")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_cache_is_keyed_by_identity_or_repr(module):
    found = _identity_keys(MODULES[module])
    assert not found, f"{module}: {found} (key caches by a value that determines the answer)"


def test_the_sandbox_package_imports_nothing_above_the_foundation():
    sandbox = sorted(m for m in MODULES if m.startswith("gamekit.sandbox"))
    assert "gamekit.sandbox.zygote" in sandbox and "gamekit.sandbox.process" in sandbox
    for module in sandbox:
        found = {m for m in imports(MODULES[module], module, False) if not m.startswith("gamekit.sandbox")}
        assert found <= FOUNDATION, f"{module} imports {sorted(found - FOUNDATION)}"


def test_the_identity_key_check_catches_both_kinds(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("cache = {}\ndef f(game):\n    cache[id(game)] = 1\n    return cache.get(repr(game))\n")
    assert len(_identity_keys(sample)) == 2


def test_every_game_of_the_games_layer_is_in_the_one_registry():
    """A game class in gamekit/games/ that `gamekit.games.registry` does not name is covered by no
    contract test list, no tournament name and no README list: adding a game is its module plus one
    registry entry."""
    import importlib

    from gamekit.games.registry import COURSE_GAMES

    registered = {entry.target for entry in COURSE_GAMES.values()}
    games = []
    for name, module in _game_classes().items():
        cls = getattr(importlib.import_module(module), name)
        if set(dir(cls)) >= PROTOCOL:
            games.append(f"{module}:{name}")
    assert games, "no game class found in gamekit/games/"
    assert sorted(set(games) - registered) == [], "games missing from gamekit/games/registry.py"
    assert sorted(registered - set(games)) == [], "registry entries that name no game class"
    assert {"TicTacToe", "Nim", "NimState", "SubtractionState", "GNimState"} <= GAME_NAMES


# --- one name for one thing: every __all__, no second names, no old alias modules ---------------

#: Modules that were other modules' old names and are gone: none may come back, not even as an alias
#: (import the new name).
OLD_MODULES = {
    "gamekit.isolation": "gamekit.sandbox.bwrap",
    "gamekit.tournament.zygote": "gamekit.sandbox.zygote",
}

#: Second names that still exist: the names one object is exported under. The change that removes a
#: second name removes its entry; an entry that no longer holds fails, so this list only shrinks.
KNOWN_SECOND_NAMES: set[frozenset[str]] = set()


def _public_modules() -> dict[str, object]:
    """Every module of gamekit that a user may import (not a `__main__`, nothing private), imported."""
    import importlib

    return {
        m: importlib.import_module(m)
        for m in sorted(MODULES)
        if not m.endswith(".__main__") and not any(part.startswith("_") for part in m.split("."))
    }


def _exports() -> dict[int, tuple[object, set[tuple[str, str]]]]:
    """{id: (object, {(module, name)})} over every `__all__`: each exported object with every name
    it is exported under. Numbers, strings and typing's aliases (`State = Any`) are left out: equal
    values of those are the same object without being one thing."""
    import typing

    found: dict[int, tuple[object, set[tuple[str, str]]]] = {}
    for module, mod in _public_modules().items():
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if isinstance(obj, (int, float, complex, str, bytes, type(None))):
                continue
            if obj is typing.Any or getattr(type(obj), "__module__", "") == "typing":
                continue
            found.setdefault(id(obj), (obj, set()))[1].add((module, name))
    return found


def test_every_name_in_every_all_exists_once():
    """Every module is itself, and every name its `__all__` lists exists, once, and is public."""
    problems = []
    for module, mod in _public_modules().items():
        if mod.__name__ != module:  # the old alias trick: sys.modules[__name__] = another module
            problems.append(f"{module} is another module ({mod.__name__}) under a second name")
        names = getattr(mod, "__all__", None)
        if names is None:
            continue
        problems += [f"{module}.__all__ names {n!r} twice" for n in sorted({n for n in names if names.count(n) > 1})]
        problems += [f"{module}.__all__ names {n!r}, which it does not have" for n in names if not hasattr(mod, n)]
        problems += [f"{module}.__all__ exports the private name {n!r}" for n in names if n.startswith("_")]
    assert not problems, "\n".join(problems)


def test_no_object_is_exported_under_two_names():
    """One name for one thing: an object exported by several modules (a package re-exporting its
    modules, `build` its parts) has the same name everywhere; a second name for it is an old name."""
    seen = set()
    problems = []
    for _obj, where in _exports().values():
        names = frozenset(name for _, name in where)
        if len(names) < 2:
            continue
        seen.add(names)
        if names not in KNOWN_SECOND_NAMES:
            problems.append(f"one object, several names: {sorted(f'{m}.{n}' for m, n in where)}")
    assert not problems, "\n".join(problems)
    gone = sorted(sorted(names) for names in KNOWN_SECOND_NAMES - seen)
    assert not gone, f"second names that no longer exist: remove {gone} from KNOWN_SECOND_NAMES"


def test_no_old_module_name_is_back():
    import importlib.util

    for old, new in OLD_MODULES.items():
        path = ROOT / Path(*old.split("."))
        assert not path.with_suffix(".py").exists() and not (path / "__init__.py").exists(), f"{old} is back"
        assert importlib.util.find_spec(old) is None, f"{old} can be imported again: import {new}"
        assert new in MODULES, f"{new} (the name that replaced {old}) is gone: update OLD_MODULES"


def test_the_one_name_check_catches_a_second_name(monkeypatch):
    """The check is alive: a second name added to a module's __all__ is found."""
    import gamekit.course.build as build

    monkeypatch.setattr(build, "make_slides", build.build_slides, raising=False)
    monkeypatch.setattr(build, "__all__", [*build.__all__, "make_slides"])
    [where] = [w for _, w in _exports().values() if ("gamekit.course.build", "make_slides") in w]
    assert {n for _, n in where} == {"build_slides", "make_slides"}


def test_every_file_of_the_package_that_is_not_python_is_package_data():
    """A non-editable install (a wheel) carries a package's other files only when pyproject's
    package-data names them: the build reads its templates from there (importlib.resources)."""
    import fnmatch

    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    missing = []
    for path in sorted(PACKAGE.rglob("*")):
        if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        folder = next(p for p in path.parents if (p / "__init__.py").is_file())
        package = module_name(folder / "__init__.py")
        relative = path.relative_to(folder).as_posix()
        if not any(fnmatch.fnmatch(relative, pattern) for pattern in data.get(package, [])):
            missing.append(f"{path.relative_to(ROOT)} (package {package})")
    assert not missing, f"files no wheel carries: add them to [tool.setuptools.package-data]: {missing}"
