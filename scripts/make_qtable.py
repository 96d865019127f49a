"""Train a Q-table for Nim by self-play and save it as JSON (regenerates the tables in data/).

    python scripts/make_qtable.py --piles 3 5 7 --misere --out data/qtable_misere_357.json

Options: --episodes (default 20000), --seed (default 2026), --target negamax|naive|seed,
--encoding plain|sorted. The run is deterministic: the same command writes the same file.
(`python -m gamekit.qlearning` runs the same code, but Python warns there: `import gamekit` has
already imported `gamekit.qlearning` before runpy executes it as `__main__`.)
"""

from gamekit.qlearning import main

if __name__ == "__main__":
    main()
