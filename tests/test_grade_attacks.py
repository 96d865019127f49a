"""Grading against cheating submissions: each attack, written as a determined student would, costs
the cheater and nobody else.

Every submission here is the fixture's student notebook (tests/fixtures/99-fixture.ipynb) with
attack code in its answer cells. An attack that worked would earn points it did not deserve (the
answers are wrong unless the attack succeeds), leave a process behind, change a file outside the
grading's own folders, reach the network, or leak the teacher's secret (a file and an environment
variable) into a report. The honest submissions graded in the same run must score exactly as
they do alone.
"""

from __future__ import annotations

import csv
import json
import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from gamekit.course import grade, gradesandbox
from gamekit.sandbox import bwrap_path

pytestmark = [
    pytest.mark.notebook,
    pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (apt-get install bubblewrap)"),
]

CANARY = "CANARY-grading-5d1e0b"
MARKER = "gamekit-linger-7b2f"
#: Seconds a cell of the zoo may run (`import otter`, the first cell, takes up to 20 s at a load of 12),
#: and each submission in all (honest ones need 15-30 s at a load of 10-12).
CELL_SECONDS = 30
CAP_SECONDS = 120.0
#: The notebook of slow and endless cells, graded alone: six runs of it would take 6 x (4 + 3) s and more
#: (the lesson's own cells besides); its cap stops it in its second or third run. The cap is the claim, not
#: its size: a shorter one keeps the zoo (run twice, as root and as the unprivileged teacher) from waiting.
ENDLESS_CELL_SECONDS = 3
ENDLESS_CAP_SECONDS = 15.0


def _attacks(
    paths: dict[str, str], port: int, red: int, roots: tuple[str, ...] = ("/tmp", "/root", "/home", "/work")
) -> dict[str, dict[str, str]]:
    """student -> {question: answer cell source}; questions left out keep the student copy's `...`.
    `roots`: where "read-tests" searches for the tests, besides the folders of `paths`."""
    p = json.dumps(paths)
    return {
        # otter's runner replaced: every check "passes"; the saved outputs say so too (see _claim_passed)
        "replace-runner": {
            "q99_1": "import otter\n"
            "otter.Notebook.check = lambda self, *a, **k: print('passed!')\n"
            "grader.check = lambda *a, **k: print('passed!')\n"
            "answer_99_1 = 'all of them'",
            "q99_4": "answer_99_4 = 7",
        },
        # objects that say yes to every comparison
        "always-equal": {
            "q99_1": "class Yes(list):\n"
            "    def __eq__(self, other): return True\n"
            "    def __ne__(self, other): return False\n"
            "    __hash__ = None\n"
            "answer_99_1 = Yes([3])",
            "q99_4": "class Yes(int):\n"
            "    def __eq__(self, other): return True\n"
            "    __hash__ = int.__hash__\n"
            "answer_99_4 = Yes(0)",
        },
        # look for the tests, the master, the autograder and the teacher's secret everywhere; any find
        # turns into the right answer
        "read-tests": {
            "q99_1": "import os, glob\n"
            f"PATHS = {p}\n"
            "found = []\n"
            "for path in list(PATHS.values()) + ['/proc/1/environ', '/proc/self/environ']:\n"
            "    try:\n"
            "        found.append(open(path, 'rb').read())\n"
            "    except OSError:\n"
            "        pass\n"
            f"roots = {set(roots)!r} | {{os.path.dirname(v) for v in PATHS.values()}}\n"
            "names = ['tests/q99_*.py', '*autograder*.zip', '99-fixture.ipynb', '*grading*.json']\n"
            "for pattern in [r + '/**/' + n for r in roots for n in names]:\n"
            "    for path in glob.glob(pattern, recursive=True)[:20]:\n"
            "        try:\n"
            "            found.append(open(path, 'rb').read())\n"
            "        except OSError:\n"
            "            pass\n"
            "for pid in os.listdir('/proc'):\n"
            "    if pid.isdigit():\n"
            "        try:\n"
            "            found.append(open(f'/proc/{pid}/environ', 'rb').read())\n"
            "        except OSError:\n"
            "            pass\n"
            "secret = any(b'CANARY' in f for f in found) or 'CANARY' in str(os.environ)\n"
            "tests = any(b'best_moves' in f or b'red_blue(40)' in f for f in found)\n"
            "answer_99_1 = [3, 11] if tests else [5]",
            "q99_4": f"answer_99_4 = {red} if secret else 0",
        },
        # kill the grader, every process it can see, and the teacher's own process by its number
        "kill-grader": {
            "q99_1": "answer_99_1 = [3, 11]",
            "q99_4": "import os, signal\n"
            f"for target in (os.getppid(), {os.getpid()}, 1):\n"
            "    try:\n"
            "        os.kill(target, signal.SIGKILL)\n"
            "    except OSError:\n"
            "        pass\n"
            "os.kill(-1, signal.SIGKILL)\n"
            f"answer_99_4 = {red}",
        },
        # processes that try to outlive the grading (a new session, a double fork)
        "linger": {
            "q99_1": "import os, subprocess, sys\n"
            f"subprocess.Popen(['sleep', '300', '{MARKER}'], start_new_session=True)\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    if os.fork() == 0:\n"
            f"        os.execv('/bin/sleep', ['sleep', '301', '{MARKER}'])\n"
            "    os._exit(0)\n"
            "answer_99_1 = [3, 11]",
            "q99_4": f"answer_99_4 = {red}",
        },
        # the network: a server of the teacher's machine on loopback
        "network": {
            "q99_1": "import socket\n"
            "try:\n"
            f"    s = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
            "    s.sendall(b'from the sandbox')\n"
            "    answer_99_1 = [3, 11]\n"
            "except OSError:\n"
            "    answer_99_1 = [5]",
        },
        # write everywhere it should not: the submissions, the grades, the autograder, the teacher's home
        "write-outside": {
            "q99_1": "import os\n"
            f"PATHS = {p}\n"
            "for path in PATHS.values():\n"
            "    for target in (path, os.path.join(os.path.dirname(path), 'planted.txt')):\n"
            "        try:\n"
            "            with open(target, 'w') as f:\n"
            "                f.write('rigged')\n"
            "        except OSError:\n"
            "            pass\n"
            "answer_99_1 = [5]",
        },
        # the library the tests use, replaced so that in-kernel tests would agree with wrong answers
        "patch-library": {
            "q99_1": "import gamekit, gamekit.solve\n"
            "gamekit.best_moves = lambda game, state: [5]\n"
            "best_moves = gamekit.best_moves\n"
            "answer_99_1 = [5]",
            "q99_2": "import gamekit\n"
            "class _R:\n"
            "    value, nodes = 1, 1\n"
            "gamekit.alphabeta = lambda *a, **k: _R()\n"
            "alphabeta = gamekit.alphabeta\n"
            "def alphabeta_value(game, state, alpha=None, beta=None):\n"
            "    return 1",
        },
        # forged reports with unhashable ids, a flood and a bomb on the report channel, then a right answer
        "flood-channel": {
            "q99_1": "import os\n"
            "for fd in range(3, 64):\n"
            "    try:\n"
            '        os.write(fd, b\'{"probe": [1], "check_done": {}, "name": [2]}\\n\')\n'
            "        os.write(fd, b'[' * 5_000_000)\n"
            "    except OSError:\n"
            "        pass\n"
            "answer_99_1 = [3, 11]",
            "q99_4": f"answer_99_4 = {red}",
        },
        # all memory and a fork bomb, bounded by the sandbox's limits (only this exercise is lost)
        "exhaust": {
            "q99_1": "answer_99_1 = [3, 11]",
            "q99_4": "blob = bytearray(8 << 30)\nanswer_99_4 = 0",
        },
        # text that cannot be written as UTF-8 (a lone surrogate in a class's module), an escape sequence
        # and a megabyte, in the reason for refusing the answer: it must not stop the class's reports
        "bad-text": {
            "q99_1": "class Eve:\n    pass\n\n"
            "Eve.__module__ = 'Eve \\ud800\\x1b[2J' + 'x' * 1_000_000\n"
            "answer_99_1 = Eve()",
            "q99_4": f"answer_99_4 = {red}",
        },
        # an answer sent as a set of 150,000 integers that all hash to 0: building it in the judge
        # would take ~10**10 comparisons (the whole class's grading held for its time limit)
        "collide": {
            "q99_1": "import sys\n"
            "plain = next(m for n, m in list(sys.modules.items())\n"
            "             if n.startswith('gamekit') and n.endswith('.plain'))\n"
            "items = [k * (2**61 - 1) for k in range(1, 150_000)]\n"
            "honest_encode = plain.encode\n"
            "plain.encode = lambda v, depth=0: {'set': items} if v == 'collide' else honest_encode(v, depth)\n"
            "answer_99_1 = 'collide'",
            "q99_4": f"answer_99_4 = {red}",
        },
    }


def _claim_passed(nb: nbformat.NotebookNode) -> None:
    """Saved outputs that say every check passed (what a replaced runner prints)."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "grader.check(" in cell.source:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="passed! 🎉\n")]


def _processes_with(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(int(pid))
            except OSError:
                pass
    return found


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_cheating_submissions_cost_only_the_cheater(tmp_path, artifacts, monkeypatch):
    from assigned import assigned_fixture
    from submissions import CORRECT, EXPECTED, RED_1_40, answer_cells, make_submission

    done = assigned_fixture()
    teacher = tmp_path / "teacher"
    teacher.mkdir()
    canary_file = teacher / "id_rsa"
    canary_file.write_text(CANARY)
    monkeypatch.setenv("GAMEKIT_CANARY", CANARY)
    folder = tmp_path / "submissions"
    folder.mkdir()
    out = tmp_path / "grades"
    paths = {
        "canary": str(canary_file),
        "autograder": str(done.autograder),
        "master": str(done.master),
        "student": str(done.student),
        "submission": str(folder / "all-correct.ipynb"),
    }
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    reached: list[bytes] = []
    stop = threading.Event()

    def listen() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                reached.append(conn.recv(100))
                conn.close()
            except OSError:
                continue

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    attacks = _attacks(paths, server.getsockname()[1], RED_1_40)
    student_nb = nbformat.read(done.student, as_version=4)
    cells = answer_cells(student_nb)
    for student in ("all-correct", "too-many-nodes"):
        nbformat.write(make_submission(student_nb, student), folder / f"{student}.ipynb")
    for student, answers in attacks.items():
        nb = nbformat.read(done.student, as_version=4)
        for q, source in {**CORRECT, **{"q99_1": "answer_99_1 = [5]", "q99_4": "answer_99_4 = 0"}, **answers}.items():
            nb.cells[cells[q]].source = source
        if student == "replace-runner":
            _claim_passed(nb)
        nbformat.write(nb, folder / f"{student}.ipynb")
    # files that are not the student's notebook: the teacher's key, the master's folder, a FIFO, a device
    (folder / "symlinked.ipynb").symlink_to(canary_file)
    (folder / "master-thief").symlink_to(done.master.parent)  # would grade the master's solutions as hers
    os.mkfifo(folder / "fifo.ipynb")
    if os.geteuid() == 0:
        os.mknod(folder / "device.ipynb", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
    protected = {
        "submissions": _snapshot(folder),
        "teacher": _snapshot(teacher),
        "autograder": _snapshot(done.autograder.parent),
    }
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # every temporary folder of the grading
    start = time.monotonic()
    results, [csv_path] = grade.grade(
        folder, [done.autograder], out, cell_timeout=CELL_SECONDS, jobs=2, submission_seconds=CAP_SECONDS
    )
    seconds = time.monotonic() - start
    # many slow cells and six endless ones: without a cap, six runs of the notebook at full time-out.
    # Graded on its own, with a short cell limit and cap, so that the zoo above need not wait for it.
    endless_folder = tmp_path / "endless"
    endless_folder.mkdir()
    nb = make_submission(student_nb, "all-correct")
    nb.cells += [nbformat.v4.new_code_cell("import time\ntime.sleep(1)") for _ in range(4)]
    nb.cells += [nbformat.v4.new_code_cell("while True:\n    pass") for _ in range(6)]
    nbformat.write(nb, endless_folder / "endless-slow.ipynb")
    [endless], _ = grade.grade(
        endless_folder, [done.autograder], tmp_path / "endless-grades", cell_timeout=ENDLESS_CELL_SECONDS,
        jobs=1, submission_seconds=ENDLESS_CAP_SECONDS)  # fmt: skip
    stop.set()
    listener.join(2)
    server.close()
    by = {r.student: r for r in results}
    scores = {s: {q: r.score(q) for q in ("q99_1", "q99_2", "q99_4")} for s, r in by.items()}
    (artifacts / "grade-attacks.json").write_text(
        json.dumps({"seconds": round(seconds, 1), "scores": scores}, indent=1)
    )

    # the honest students score exactly as they do without the attackers
    assert scores["all-correct"] == EXPECTED["all-correct"]
    assert scores["too-many-nodes"] == EXPECTED["too-many-nodes"]
    # no attack earns a point it did not deserve
    for student in ("replace-runner", "always-equal", "read-tests", "network", "write-outside", "patch-library"):
        assert scores[student]["q99_1"] == 0 and scores[student]["q99_4"] == 0, student
    assert scores["patch-library"]["q99_2"] == 0
    # files that are not notebooks are refused with a reason, for their student only, never opened
    refused = [("symlinked", "a symbolic link"), ("master-thief", "a symbolic link"), ("fifo", "a FIFO")]
    for student, kind in refused + ([("device", "a character device")] if os.geteuid() == 0 else []):
        assert scores[student] == {"q99_1": 0, "q99_2": 0, "q99_4": 0}, student
        assert by[student].error.startswith("refused: ") and kind in by[student].error, by[student].error
    # bad text is cleaned and cut, and costs only its exercise
    assert scores["bad-text"] == {"q99_1": 0, "q99_2": 2, "q99_4": 1}
    assert any("type Eve \ufffd\ufffd[2Jxxx" in n and len(n) < 500 for n in by["bad-text"].notes), by["bad-text"].notes
    # colliding hashes: refused by the judge's decoder with a reason, in its own time
    messages = [c["message"] or "" for c in by["collide"].questions["q99_1"]["cases"]]
    assert scores["collide"]["q99_1"] == 0 and scores["collide"]["q99_4"] == 1
    assert any("share one hash value" in m for m in messages), messages
    # the endless notebook is stopped by its cap, before its sixth run, and keeps nothing it did not finish
    assert f"used its {ENDLESS_CAP_SECONDS:g} s" in (endless.error or ""), endless.error
    runs = re.search(r"all (\d+) run", endless.error)
    assert runs and int(runs.group(1)) < gradesandbox.ROUNDS, endless.error
    assert endless.seconds < ENDLESS_CAP_SECONDS + 30 and endless.total == 0
    # the right answers of an attacker still count; the attack costs its own exercise only
    assert scores["kill-grader"]["q99_1"] == 1 and scores["kill-grader"]["q99_2"] == 2, by["kill-grader"].notes
    assert scores["linger"] == {"q99_1": 1, "q99_2": 2, "q99_4": 1}
    assert scores["exhaust"] == {"q99_1": 1, "q99_2": 2, "q99_4": 0}
    assert scores["flood-channel"]["q99_1"] == 0 and scores["flood-channel"]["q99_2"] == 2
    assert any("Exercise 99.1" in n for n in by["flood-channel"].notes)
    # an answer object that lies is refused with a reason, not taken for what it claims
    notes = " ".join(by["always-equal"].notes)
    assert "`answer_99_1` could not be sent to the grader: it is or holds a __main__.Yes" in notes
    # the notebook that claimed its checks passed is flagged for the teacher
    rows = {r["student"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert "q99_1" in rows["replace-runner"]["flags"]
    assert rows["all-correct"]["flags"] == "" and rows["too-many-nodes"]["flags"] == ""
    # nothing reached the network, nothing outside changed, nothing survived, nothing leaked
    assert reached == []
    assert _snapshot(folder) == protected["submissions"]
    assert _snapshot(teacher) == protected["teacher"]
    assert _snapshot(done.autograder.parent) == protected["autograder"]
    assert _processes_with(MARKER) == []
    assert list(scratch.iterdir()) == []  # no temporary folder left behind
    for path in out.rglob("*"):
        if path.is_file():
            assert CANARY not in path.read_text(encoding="utf-8", errors="replace"), path
    rows = {r["student"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert "refused: symlinked.ipynb is a symbolic link" in rows["symlinked"]["notes"]


def _burn(seconds: float) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", f"import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass"]
    )


def test_a_crash_costs_one_exercise_on_a_busy_machine(tmp_path):
    """The same scores with every core busy: the crash, the loop and the honest answers."""
    from assigned import assigned_fixture
    from submissions import EXPECTED, make_submission

    done = assigned_fixture()
    folder = tmp_path / "submissions"
    folder.mkdir()
    student_nb = nbformat.read(done.student, as_version=4)
    chosen = ("all-correct", "kernel-crash", "infinite-loop", "syntax-error")
    for student in chosen:
        nbformat.write(make_submission(student_nb, student), folder / f"{student}.ipynb")
    burners = [_burn(300) for _ in range(os.cpu_count() or 2)]  # one per core: every core busy
    try:
        results, _ = grade.grade(folder, [done.autograder], tmp_path / "grades", cell_timeout=10, jobs=2)
    finally:
        for b in burners:
            b.kill()
            b.wait()
    got = {r.student: {q: r.score(q) for q in EXPECTED[r.student]} for r in results}
    assert got == {s: EXPECTED[s] for s in chosen}
    crash = next(r for r in results if r.student == "kernel-crash")
    assert any("Exercise 99.4" in n and "Python died" in n for n in crash.notes)


def test_grading_refuses_without_bubblewrap_unless_trusted(tmp_path, monkeypatch, capsys):
    import gamekit.sandbox.bwrap as isolation
    from gamekit.course.__main__ import main

    monkeypatch.setattr(isolation, "bwrap_path", lambda: None)
    (tmp_path / "subs").mkdir()
    out = tmp_path / "grades"
    assert main(["--out", str(tmp_path), "grade", str(tmp_path / "subs"), "--grades", str(out)]) == 2
    err = capsys.readouterr().err
    assert "bubblewrap" in err and "--trusted-code" in err and "WSL" in err and "Dockerfile" in err
    assert not out.exists()


def test_the_same_attacks_succeed_without_the_sandbox(tmp_path):
    """The attacks above are real: with `--trusted-code` (no bubblewrap) they read the teacher's
    secret and the tests and reach the network; only the sandbox stops them."""
    from assigned import assigned_fixture
    from submissions import CORRECT, RED_1_40, answer_cells

    done = assigned_fixture()
    canary_file = tmp_path / "id_rsa"
    canary_file.write_text(CANARY)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    paths = {"canary": str(canary_file), "autograder": str(done.autograder), "master": str(done.master)}
    # the search reaches the tests through the folders of `paths` alone (no walk over every folder
    # of the machine), and the limits are generous: the point is the attack, not the machine's speed
    attacks = _attacks(paths, server.getsockname()[1], RED_1_40, roots=())
    folder = tmp_path / "submissions"
    folder.mkdir()
    student_nb = nbformat.read(done.student, as_version=4)
    cells = answer_cells(student_nb)
    for student in ("read-tests", "network"):
        nb = nbformat.read(done.student, as_version=4)
        for q, source in {**CORRECT, **attacks[student]}.items():
            nb.cells[cells[q]].source = source
        nbformat.write(nb, folder / f"{student}.ipynb")
    results, _ = grade.grade(
        folder, [done.autograder], tmp_path / "grades", cell_timeout=600, jobs=1, trusted_code=True,
        submission_seconds=3600,
    )  # fmt: skip
    server.settimeout(1)
    conn, _ = server.accept()
    assert conn.recv(100) == b"from the sandbox"
    conn.close()
    server.close()
    by = {r.student: r for r in results}
    assert by["read-tests"].score("q99_1") == 1 and by["read-tests"].score("q99_4") == 1


def test_an_archive_with_links_and_outside_paths_costs_only_their_students(tmp_path, monkeypatch):
    """A zip of the class's folder with a member that is a symbolic link to the teacher's key and
    members whose paths leave the folder: those are refused for their students, the honest one is
    graded as from a folder, nothing is written outside, nothing leaks, no temporary folder stays."""
    import zipfile

    from assigned import assigned_fixture
    from submissions import EXPECTED, make_submission

    done = assigned_fixture()
    canary_file = tmp_path / "id_rsa"
    canary_file.write_text(CANARY)
    honest = nbformat.writes(make_submission(nbformat.read(done.student, as_version=4), "all-correct"))
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("all-correct/work.ipynb", honest)
        link = zipfile.ZipInfo("eve/work.ipynb")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(link, str(canary_file))
        z.writestr("../../escaped.ipynb", honest)
        z.writestr(f"{tmp_path}/absolute.ipynb", honest)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    out = tmp_path / "grades"
    results, [csv_path] = grade.grade(archive, [done.autograder], out, cell_timeout=30, jobs=2)
    by = {r.student: r for r in results}
    assert {q: by["all-correct"].score(q) for q in EXPECTED["all-correct"]} == EXPECTED["all-correct"]
    assert by["eve"].error == "refused: eve/work.ipynb was not unpacked: a symbolic link, not a file"
    assert "outside the archive's folder" in by["escaped"].error and by["escaped"].total == 0
    assert not (tmp_path.parent / "escaped.ipynb").exists() and not (tmp_path / "absolute.ipynb").exists()
    assert list(scratch.iterdir()) == []
    for path in out.rglob("*"):
        if path.is_file():
            assert CANARY not in path.read_text(encoding="utf-8", errors="replace"), path


def test_a_runner_that_stops_reading_its_requests_is_stopped_by_the_deadline_not_waited_for():
    """The grader's requests to a jail go through the channel with a deadline: a runner whose student
    code keeps its request pipe open without reading (os.dup(0), then anything else on fd 0) gets
    the request's 'late' stop in time; the grader never blocks on a pipe that does not drain."""
    import time

    from gamekit.course import gradesandbox
    from gamekit.sandbox.channel import Channel

    r, w = os.pipe()  # r held open, never read: the pipe fills after 64 KiB
    channel = Channel(w, -1)
    job = {"names": ["answer_" + "x" * 60] * 4000}  # about 280 KB, four pipes' worth
    t0 = time.monotonic()
    with pytest.raises(gradesandbox._Stop) as stop:
        gradesandbox._tell(channel, job, t0 + 0.5, ("job", None), "late")
    assert stop.value.why == "late" and stop.value.item == ("job", None)
    assert 0.45 <= time.monotonic() - t0 < 5  # it waited for the deadline, and not for ever
    os.close(r)
    with pytest.raises(gradesandbox._Stop) as gone:  # the runner gone: its reader closed
        gradesandbox._tell(channel, job, time.monotonic() + 0.5, ("job", None), "late")
    assert gone.value.why == "died"
    channel.close()
