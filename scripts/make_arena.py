"""Run the course's arena (chapter 8) and save its results as JSON (regenerates data/arena_small.json).

    python scripts/make_arena.py --games-per-pair 20 --seed 2026 --out data/arena_small.json

Every agent of the course against every other on the four course games, both seats, seeded: the
win / draw / loss counts are the same on every run; the seconds per move depend on the machine.
(`python -m gamekit.arena` runs the same code, but Python warns there: `import gamekit`
has already imported `gamekit.arena` before runpy executes it as `__main__`.)
"""

from gamekit.arena import main

if __name__ == "__main__":
    main()
