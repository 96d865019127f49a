"""Every notebook runs top to bottom headless, draws real figures, passes its own
self-checks, and exports to reveal.js slides (offline: no CDN) and to an HTML page."""

import warnings

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT

from gamekit.course import build
from gamekit.course.execute import execute_notebook, export_slides
from gamekit.course.nbcheck import notebook_problems


def _outputs(nb):
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for out in cell.get("outputs", []):
                yield i, out


def _text(out) -> str:
    if out.get("output_type") == "stream":
        return out.get("text", "")
    data = out.get("data", {})
    return str(data.get("text/plain", "")) + str(data.get("text/html", ""))


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_and_exports(path, artifacts):
    nb = execute_notebook(path)
    nbformat.write(nb, artifacts / f"{path.stem}.executed.ipynb")

    errors = [i for i, out in _outputs(nb) if out.get("output_type") == "error"]
    assert not errors, f"cells {errors} raised errors"
    images = [i for i, out in _outputs(nb) if "image/png" in out.get("data", {})]
    assert len(images) >= 3, f"only {len(images)} cells drew a figure (is MPLBACKEND=Agg leaking in?)"
    failed_checks = [i for i, out in _outputs(nb) if "Not yet" in _text(out)]
    assert not failed_checks, f"self-checks in cells {failed_checks} say 'Not yet' against the solutions"
    assert notebook_problems(nb, stored=False) == []

    slides = export_slides(nb, artifacts / f"{path.stem}.slides.html")
    assert "reveal" in slides.lower()
    assert slides.count("<section") >= 5

    # The course build (python -m gamekit.course slides / html) on the same executed notebook:
    # slides and page in test-artifacts/build/, with their lib/ beside them, no CDN needed.
    paths = build.BuildPaths(artifacts / "build", assets_root=ROOT / "_build" / "assets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        offline = build.install_assets(paths)
    for out in (build.write_slides(nb, path.stem, paths), build.write_html(nb, path.stem, paths)):
        page = out.read_text(encoding="utf-8")
        if offline:
            assert build.remote_resources(page) == [], f"{out.name} loads from the network"
        assert "data:image/png;base64" in page
