"""The examples in the public entry points' docstrings run, and say what they show (issue 35).

`Game.play`, `wire.state_from_json`, `check_game` and the statistics a teacher calls (`wilson`,
`rate_text`, `fit_ratings`, `robust_ratings`, `sprt`, `simulate_sprt`) each carry a `Raises:`
section and examples; every example of their modules runs here (not through `--doctest-modules`
for the whole package), and a module whose examples were all lost fails instead of passing empty.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io

import pytest

#: module -> its entry points that must show an example and say what they raise
ENTRY_POINTS = {
    "gamekit.protocol": ["Game.play"],
    "gamekit.wire": ["state_from_json"],
    "gamekit.testing": ["check_game"],
    "gamekit.stats": ["wilson", "rate_text", "fit_ratings", "robust_ratings", "sprt", "simulate_sprt"],
}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_a_modules_examples_run_and_hold(name):
    module = importlib.import_module(name)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert attempted > 0, f"{name} has no examples left"
    assert failed == 0, out.getvalue()


@pytest.mark.parametrize("name, entry", [(m, e) for m, entries in sorted(ENTRY_POINTS.items()) for e in entries])
def test_each_entry_point_says_what_it_raises_and_shows_an_example(name, entry):
    target = importlib.import_module(name)
    for part in entry.split("."):
        target = getattr(target, part)
    text = target.__doc__ or ""
    assert "\n        Raises:\n" in text or "\n    Raises:\n" in text, f"{name}.{entry} has no Raises: section"
    examples = doctest.DocTestParser().get_examples(text)
    assert examples, f"{name}.{entry} shows no example"
