"""Grading on the class's Dask cluster (TLS, loopback): the same CSV as grading locally.

Uses the tournament's loopback cluster (a TLS scheduler and two workers with the certificates of
`python -m gamekit.tournament certs`); each worker runs the submissions in the same bubblewrap
sandbox as the teacher's machine would.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
sys.path.insert(0, str(Path(__file__).parent))

from test_tournament_cluster import dask_cluster  # noqa: F401  (the loopback TLS cluster)

from gamekit.course import grade, gradecluster

pytestmark = [pytest.mark.slow, pytest.mark.notebook]

KINDS = ["all-correct", "all-blank", "wrong-answers", "too-many-nodes", "syntax-error", "kernel-crash",
         "deleted-check-cell"]  # fmt: skip


def test_grading_on_the_cluster_gives_the_local_csv(dask_cluster, tmp_path):  # noqa: F811
    pytest.importorskip("dask.distributed")
    import nbformat
    from assigned import assigned_fixture
    from submissions import make_submission

    done = assigned_fixture()
    student = nbformat.read(done.student, as_version=4)
    folder = tmp_path / "subs"
    folder.mkdir()
    for kind in KINDS:
        nbformat.write(make_submission(student, kind), folder / f"{kind}.ipynb")
    (folder / "not-json.ipynb").write_text("{ this is no notebook")
    start = time.monotonic()
    _, [local] = grade.grade(folder, [done.autograder], tmp_path / "local", cell_timeout=120, jobs=2)
    local_seconds = time.monotonic() - start
    address, certs = dask_cluster
    start = time.monotonic()
    _, [remote] = grade.grade(
        folder, [done.autograder], tmp_path / "remote", cell_timeout=120, scheduler=address, tls=certs
    )
    remote_seconds = time.monotonic() - start
    print(f"{len(KINDS) + 1} submissions: local {local_seconds:.1f} s, on the cluster {remote_seconds:.1f} s")
    assert remote.read_bytes() == local.read_bytes()
    rows = list(csv.reader(local.read_text().splitlines()))  # read as CSV: however the writer quotes
    assert len(rows) == len(KINDS) + 2 and ["all-correct", "1", "2", "", "1", "4"] in [r[:6] for r in rows]
    feedback = sorted((tmp_path / "remote" / "feedback").rglob("*.html"))
    assert [p.read_bytes() for p in feedback] == [
        (tmp_path / "local" / p.relative_to(tmp_path / "remote")).read_bytes() for p in feedback
    ]


def test_grading_refuses_a_scheduler_without_tls(tmp_path):
    with pytest.raises(ValueError, match="TLS"):
        grade.grade(tmp_path, [tmp_path], tmp_path / "g", scheduler="tcp://127.0.0.1:8786", tls=tmp_path)
    with pytest.raises(ValueError, match="TLS"):
        grade.grade(tmp_path, [tmp_path], tmp_path / "g", scheduler="tls://127.0.0.1:8786", tls=None)


def test_a_workers_answer_is_checked_before_it_is_believed():
    spec = {
        "questions": [
            {"cases": [{"id": "q1.0", "names": ["answer_1"], "probe": None, "hidden": False},
                       {"id": "q1.1", "names": ["answer_1"], "probe": "p()", "hidden": True}]}
        ]
    }  # fmt: skip
    forged = {
        "stopped": {"3": "late", "999": "beyond the notebook", "x": "no index"},
        "names": {"answer_1": {"value": "[1]"}, "__import__": {"value": "evil"}, "answer_2": {"why": "x"}},
        "probes": {"q1.1": {"value": "2", "extra": 1}, "q9": {"value": "1"}},
        "checks": {"q1.0": True, "q1.1": True, "zz": True},
        "error": None,
        "rounds": "many",
    }
    run = gradecluster.parse_sandbox_run(json.dumps(forged), spec, cells=10)
    assert run.stopped == {3: "late"} and run.names == {"answer_1": {"value": "[1]"}}
    assert run.probes == {} and run.checks == {"q1.0": True} and run.rounds == 0
    for bad in (b"x", 5, "[" * 100 + "]" * 100, json.dumps([1])):
        with pytest.raises(ValueError):
            gradecluster.parse_sandbox_run(bad, spec, cells=10)


def test_a_workers_failure_comes_back_as_a_plain_result_naming_it():
    """An exception raised on the worker would travel pickled (refused unread on the teacher's side);
    sandbox_run_json sends the failure as a result with only its error."""
    spec = {"questions": []}

    def broken_sandbox(*args):
        raise OSError("no room left on the worker")

    import nbformat

    text = gradecluster.sandbox_run_json(broken_sandbox, nbformat.writes(nbformat.v4.new_notebook()), spec, 10, True)
    run = gradecluster.parse_sandbox_run(text, spec, cells=0)
    assert run.error == "the worker that ran this notebook failed: OSError"
    assert run.stopped == {} and run.names == {} and run.checks == {} and run.rounds == 0
