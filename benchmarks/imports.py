"""What a fresh Python pays to read a notebook: CPU seconds of `import nbformat` and `import otter`.

Every otter run, notebook run, nbconvert export and Jupyter server is a new process that reads
notebooks, so their import cost is paid hundreds of times in a term's work or the test suite.
jsonschema 4.25 and newer import rfc3987-syntax when it is installed, and that package builds 38
lark parsers at import; pyproject.toml pins jsonschema below 4.25. This script prints, for each
import, the median CPU time (user + system) of 5 fresh interpreters, the ratio to an empty
interpreter started the same way, and which of the parser packages were loaded.

    python benchmarks/imports.py
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys

RUNS = 5
CHECK = "import sys; print(','.join(m for m in ('lark', 'rfc3987_syntax') if m in sys.modules) or '-')"


def cpu_seconds(code: str) -> tuple[float, str]:
    """Median CPU seconds of `python -c code` over RUNS fresh interpreters, and what the last printed."""
    times, out = [], ""
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out = done.stdout.strip()
    return statistics.median(times), out


def main() -> None:
    from importlib.metadata import version

    print(f"jsonschema {version('jsonschema')}, Python {sys.version.split()[0]}; median of {RUNS} fresh interpreters")
    base, _ = cpu_seconds("pass")
    print(f"  {'empty interpreter (baseline)':<28} {base:6.2f} s CPU")
    for module in ("jsonschema", "nbformat", "otter"):
        seconds, loaded = cpu_seconds(f"import {module}; {CHECK}")
        ratio = seconds / base
        print(f"  {'import ' + module:<28} {seconds:6.2f} s CPU  ({ratio:5.1f}x baseline)  parsers loaded: {loaded}")


if __name__ == "__main__":
    main()
