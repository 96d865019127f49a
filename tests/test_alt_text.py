"""Alt texts read aloud: LaTeX written as words and symbols, every data series counted once.

A line chart's alt text made from its artists (`describe_axes`) names its series and their range.
Error bars' caps and a reference line across the axes (`axhline`) are matplotlib lines but no
series, and a legend label in LaTeX (`$b^{3d/4}$`) must not be read as its source.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from gamekit.views.alt import alt_text, describe_axes, plain_text


@pytest.mark.parametrize(
    ("tex", "said"),
    [
        ("minimax: $b^d$", "minimax: b^d"),
        ("$b^{3d/4}$", "b^(3d/4)"),
        ("legal $R_{k_1}$", "legal R_k1"),
        ("admissible $K$", "admissible K"),
        ("Knuth–Moore $b^{⌈d/2⌉}+b^{⌊d/2⌋}-1$", "Knuth–Moore b^(⌈d/2⌉)+b^(⌊d/2⌋)-1"),
        (r"$\mathcal{O}(b^{\frac{3}{4}m})$", "O(b^((3/4)m))"),
        (r"$a \cdot b \le c$", "a · b ≤ c"),
        ("no math, 3 $ and more", "no math, 3 $ and more"),
    ],
)
def test_plain_text_says_latex_as_a_reader_would(tex, said):
    assert plain_text(tex) == said
    assert "$" not in plain_text(tex) or "$" in said


def test_an_errorbar_curve_is_one_series_and_its_range_is_the_rates_not_the_caps():
    fig, ax = plt.subplots()
    ps = np.linspace(0, 1, 11)
    rates = np.linspace(0.48, 0.93, 11)
    ax.errorbar(ps, rates, yerr=[rates - (rates - 0.06), np.full(11, 0.05)], fmt="o-", capsize=4)
    ax.axhline(0.5, ls="--")
    ax.set(xlabel="p", ylabel="win rate", title="mixed(p)")
    assert describe_axes(ax) == "Line chart (mixed(p)): 1 line; p from 0 to 1, win rate from 0.48 to 0.93"
    plt.close(fig)


def test_every_series_is_named_in_plain_text():
    fig, ax = plt.subplots()
    d = np.arange(1, 9)
    labels = ["minimax: $b^d$", "$b^{3d/4}$", "alpha-beta, natural order", "alpha-beta, shuffled",
              "alpha-beta, best order", "Knuth–Moore $b^{⌈d/2⌉}+b^{⌊d/2⌋}-1$"]  # fmt: skip
    for k, label in enumerate(labels):
        ax.plot(d, 4.0 ** (d * (1 - k / 10)), label=label)
    ax.set_title("Uniform random trees, $b = 4$")
    text = alt_text(fig)
    assert text.startswith("Line chart (Uniform random trees, b = 4): 6 lines (minimax: b^d; b^(3d/4); alpha-beta, ")
    assert "Knuth–Moore b^(⌈d/2⌉)+b^(⌊d/2⌋)-1)" in text and "$" not in text
    plt.close(fig)
