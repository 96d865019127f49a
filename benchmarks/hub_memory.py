"""How much memory a class needs on a JupyterHub: the peak memory of every lesson's kernel.

Each lesson runs from top to bottom, with its solutions (a student who has done every
exercise), in a fresh kernel, one lesson after the other. The kernel's peak resident memory
(Linux's VmHWM) is read from /proc just before the kernel is shut down; its size right after
start (a kernel with nothing imported) is the baseline. Processes a lesson starts itself (the
sandboxes of chapter 9's tournament) are not counted in the kernel's figure. A JupyterLab
server's own memory (the other part of a student's share on a hub) is printed once.

    python benchmarks/hub_memory.py            # every lesson
    python benchmarks/hub_memory.py 01 04      # some of them
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamekit.course.assign import without_teacher_cells


def _status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for process {pid}")


def kernel_peak(path: Path, timeout: int = 1800) -> tuple[float, float, float, int]:
    """(baseline MB, peak MB, seconds, cells that raised) of the kernel that runs `path` from top to bottom.

    A cell that raises does not stop the run (a lesson's own timing check can fail on a busy
    machine); the count says how many did."""
    nb = without_teacher_cells(nbformat.read(path, as_version=4))
    os.environ.setdefault("MPLBACKEND", "Agg")
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    with client.setup_kernel():
        assert client.km is not None
        pid = client.km.provisioner.pid  # type: ignore[union-attr]
        baseline = _status_kb(pid, "VmRSS")
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
        peak = _status_kb(pid, "VmHWM")
    errors = sum(any(o.get("output_type") == "error" for o in c.get("outputs", [])) for c in nb.cells)
    return baseline / 1024, peak / 1024, time.perf_counter() - start, errors


def server_memory() -> float:
    """Resident MB of a JupyterLab server that has started and answered (no kernel)."""
    import socket
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.allow_root=True", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--IdentityProvider.token=bench"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token=bench", timeout=10).read()
                break
            except OSError:
                time.sleep(1)
        return _status_kb(proc.pid, "VmHWM") / 1024
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="two-digit chapter numbers (default: every lesson)")
    args = parser.parse_args()
    folder = ROOT / "notebooks"
    paths = (
        [next(folder.glob(f"{n}-*.ipynb")) for n in args.lessons]
        if args.lessons
        else sorted(p for p in folder.glob("[0-9][0-9]-*.ipynb") if not p.name.startswith("00-"))
    )
    server = server_memory()
    print(f"a JupyterLab server (started, no kernel): {server:.0f} MB peak")
    peaks = []
    print(f"{'lesson':36s} {'kernel at start':>16s} {'kernel peak':>12s} {'time':>8s}")
    for path in paths:
        try:
            base, peak, seconds, errors = kernel_peak(path)
        except Exception as exc:  # a lesson that fails is reported, the others are still measured
            print(f"{path.stem:36s} failed: {type(exc).__name__}: {str(exc).splitlines()[0][:80]}")
            continue
        peaks.append(peak)
        raised = f"  ({errors} cell(s) raised)" if errors else ""
        print(f"{path.stem:36s} {base:13.0f} MB {peak:9.0f} MB {seconds:7.0f} s{raised}", flush=True)
    if peaks:
        per_student = server + max(peaks)
        print(
            f"one student: server {server:.0f} MB + the largest lesson kernel {max(peaks):.0f} MB"
            f" = {per_student:.0f} MB;"
            f" a class of 30 working on the same lesson at once: {30 * per_student / 1024:.1f} GB"
            " (plus the hub and proxy, about 0.2 GB)"
        )


if __name__ == "__main__":
    main()
