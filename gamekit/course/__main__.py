"""Build the course from the repository's top folder.

    python -m gamekit.course assets              # once: reveal.js, MathJax, ... from npm into _build/assets/
    python -m gamekit.course slides [NB ...]     # offline reveal.js slides   -> _build/slides/
    python -m gamekit.course handouts [NB ...]   # student copies, no answers -> _build/handouts/
    python -m gamekit.course html [NB ...]       # executed pages to read     -> _build/html/

NB is a notebook file or a two-digit chapter number (`03`); without NB every notebook is built.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gamekit.course",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    parser.add_argument("--out", type=Path, default=Path("_build"), help="build folder (default: _build)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "assets",
        help="install reveal.js, MathJax, RequireJS, jQuery and the widget renderer "
        "from npm (once; delete _build/assets to reinstall)",
    )
    for name, text in [
        ("slides", "execute notebooks and export offline reveal.js slides"),
        ("handouts", "student copies: solutions stubbed, outputs cleared"),
        ("html", "execute notebooks and export one HTML page each"),
    ]:
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("notebooks", nargs="*", help="notebook files or chapter numbers (default: all)")
        if name != "handouts":
            cmd.add_argument("--cdn", action="store_true", help="load the web libraries from CDNs (needs internet)")
    args = parser.parse_args(argv)
    paths = build.BuildPaths(args.out.resolve())

    try:
        if args.command == "assets":
            if not build.install_assets(paths):
                return 1
            print(f"assets installed in {paths.assets}")
            return 0
        notebooks = build.course_notebooks(args.notebooks)
        if args.command == "handouts":
            written = build.build_handouts(notebooks, paths)
        elif args.command == "slides":
            written = build.build_slides(notebooks, paths, offline=False if args.cdn else None)
        else:
            written = build.build_html(notebooks, paths, offline=False if args.cdn else None)
    except (ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
