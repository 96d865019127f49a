"""The judge: runs an assignment's tests on plain answers, in a process no student code ever touched.

    python -I -c BOOT <folder holding gamekit>   < job.json   > verdicts.json

The job (written by `gamekit.course.grade`, the teacher's own process) holds the lesson's code
(the master's cells outside the exercises), the test cases (`gamekit.course.cases`), and per
submission the answers that came back from its sandbox as tagged JSON text. The judge runs the
lesson once, then for each submission forks a child that rebuilds the answers with
`gamekit.sandbox.plain.loads` (exact built-in types, nothing else), binds them, runs every case
and reports pass or fail. A child that runs longer than `SUBMISSION_SECONDS` is killed: its
cases fail, the others go on. Decoding is linear (`plain` refuses sets and dicts of colliding
hash values), and the kill bounds whatever a test does with a hostile answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import time
import traceback
from typing import Any

from . import plain

__all__ = ["BOOT", "judge_submission", "main"]

BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from gamekit.sandbox.judge import main; main()"
#: Seconds one test case may take in the judge (an alarm: it cannot stop one long call into C), and
#: one submission in all (decoding its answers included; its child is killed then: this is the cap).
CASE_SECONDS = 60
SUBMISSION_SECONDS = 180


class ProbeFailed(Exception):
    """The sandbox could not give this test its data (the reason is in the message)."""


class _CaseTimeout(BaseException):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _CaseTimeout


def judge_submission(lesson: dict[str, Any], cases: list[dict[str, Any]], answers: dict[str, Any]) -> dict[str, Any]:
    """{case id: {"passed": bool, "why": str|None}} for one submission (run in a forked child)."""
    names: dict[str, Any] = {}
    why_missing: dict[str, str] = {}
    for name, item in answers.get("names", {}).items():
        if "value" in item:
            try:
                names[name] = plain.loads(item["value"])
            except plain.PlainDataError as exc:
                why_missing[name] = f"{name} could not be read: {exc}"
        else:
            why_missing[name] = item.get("why", f"{name} is not defined")
    probes = answers.get("probes", {})
    out: dict[str, Any] = {}
    signal.signal(signal.SIGALRM, _alarm)
    for case in cases:
        namespace = dict(lesson)
        for name in case["names"]:
            if name in names:
                namespace[name] = names[name]
            else:
                namespace.pop(name, None)
        if case["probe"] is not None:
            item = probes.get(case["id"], {"why": "the probe did not run"})

            def probe(item: dict[str, Any] = item) -> Any:
                if "value" not in item:
                    raise ProbeFailed(item.get("why", "no value"))
                return plain.loads(item["value"])

            namespace["probe"] = probe
        signal.alarm(CASE_SECONDS)
        try:
            exec(compile(case["judge"], f"<test {case['id']}>", "exec"), namespace)
        except _CaseTimeout:
            out[case["id"]] = {"passed": False, "why": f"the test ran longer than {CASE_SECONDS} s"}
        except ProbeFailed as exc:
            out[case["id"]] = {"passed": False, "why": str(exc)}
        except NameError as exc:
            missing = [why_missing[n] for n in case["names"] if n in why_missing]
            out[case["id"]] = {"passed": False, "why": missing[0] if missing else f"NameError: {exc}"}
        except BaseException as exc:
            out[case["id"]] = {"passed": False, "why": f"{type(exc).__name__}"}
        else:
            out[case["id"]] = {"passed": True, "why": None}
        finally:
            signal.alarm(0)
    return out


def _in_child(lesson: dict[str, Any], cases: list[dict[str, Any]], answers: dict[str, Any]) -> tuple[int, int]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: judge, write, leave without running anyone's clean-up
        os.close(read)
        try:
            data = json.dumps(judge_submission(lesson, cases, answers)).encode()
        except BaseException:
            data = json.dumps({"error": traceback.format_exc(limit=3)}).encode()
        with os.fdopen(write, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(write)
    return pid, read


def _collect(pid: int, fd: int, seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    chunks = []
    with os.fdopen(fd, "rb") as f:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"error": f"judging took longer than {seconds:g} s"}
            ready, _, _ = select.select([f], [], [], left)
            if ready:
                chunk = os.read(f.fileno(), 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    os.waitpid(pid, 0)
    try:
        return json.loads(b"".join(chunks) or b'{"error": "the judge child died"}')
    except ValueError:
        return {"error": "the judge child wrote no result"}


def main() -> None:
    job = json.load(sys.stdin)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the lesson's prints must not mix with the verdicts
    from .sandboxrun import make_shell, run_cell

    shell = make_shell()
    failed = [i for i, source in enumerate(job["lesson"]) if not run_cell(shell, source)]
    lesson = dict(shell.user_ns)
    cases = [case for q in job["questions"] for case in q["cases"]]
    verdicts = {}
    for sub in job["submissions"]:
        pid, fd = _in_child(lesson, cases, sub["answers"])
        verdicts[sub["id"]] = _collect(pid, fd, SUBMISSION_SECONDS)
    real_stdout.write(json.dumps({"lesson_failed": failed, "verdicts": verdicts}))
    real_stdout.flush()
    os._exit(0)
