"""Run the course's arena (chapter 8) for several seeds and save the runs as JSON.

Regenerates the file chapter 8 loads (about 30 s per seed on an idle 2-core machine):

    python scripts/make_arena.py --games-per-pair 20 --seeds 0 1 2 3 4 --out data/arena_seeds.json

Every agent of the course against every other on the four course games, paired starts (each
start from both seats), seeded: the win / draw / loss counts are the same on every run; the
seconds per move depend on the machine. The line-up is `gamekit.course.lineup.course_arena`.
"""

from gamekit.course.lineup import main

if __name__ == "__main__":
    main()
