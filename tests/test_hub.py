"""A class on a real JupyterHub, on loopback: ten students open lesson 01's nbgitpuller link, land in
the notebook, run its public checks through the kernel, edit a cell; the lesson is republished
with a change, the students pull again, and each keeps their edit and gets the change. Then each
follows the edition's start page to the lesson, answers, and hands it in as File → Download does;
the downloads go into a Moodle archive that is graded into a German worksheet, and the teacher's
hand points for the explanation exercise are merged: full totals, 0 bytes changed elsewhere.
The edition is served over http from 127.0.0.1 (a hub cannot clone a file:// path).

The hub is JupyterHub itself (its DummyAuthenticator and SimpleLocalProcessSpawner), with
configurable-http-proxy from npm (this test installs it into `_build/hub/` on first use) and nbgitpuller from
PyPI; everything listens on 127.0.0.1 only. Skipped, with the reason, where one of them is missing.
The test prints "k/n students, median time to the first cell".

The German edition's class is four students, not ten: it repeats the round trip for what its language
changes (German checks in the students' kernels, Lab's German menus, German feedback and the Moodle
comment); the hub's load of a whole class is the English run's.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent / "fixtures"))  # moodle, chapter04
#: Students per edition's class (see the module's docstring).
STUDENTS = {"en": 10, "de": 4}
#: Seconds for one step of a student on a busy machine (a server's start, a pull, a cell).
STEP = 300
UPDATE = "**Update from your teacher:** a hint was added to this lesson."

pytestmark = pytest.mark.slow


#: The proxy JupyterHub needs, from npm (pinned major version), installed by the test itself once.
PROXY_PACKAGE = "configurable-http-proxy@4"
PROXY_HOME = ROOT / "_build" / "hub"


def proxy_command() -> str | None:
    """configurable-http-proxy: $GAMEKIT_CHP, on PATH, or the copy in _build/hub/, which this test
    installs from npm on first use (as the slide tests install their assets): README's test command
    is all a newcomer runs. None where neither is there nor npm can install it."""
    installed = PROXY_HOME / "node_modules" / ".bin" / "configurable-http-proxy"
    candidates = [os.environ.get("GAMEKIT_CHP"), shutil.which("configurable-http-proxy"), str(installed)]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    npm = shutil.which("npm")
    if npm is None:
        return None
    PROXY_HOME.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(PROXY_HOME), "--no-audit", "--no-fund", "--silent", PROXY_PACKAGE],
        capture_output=True,
        text=True,
        timeout=600,
    )
    return str(installed) if done.returncode == 0 and installed.is_file() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _needs():
    pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install -e '.[test]')")
    pytest.importorskip("nbgitpuller", reason="nbgitpuller is not installed (pip install -e '.[test]')")
    pytest.importorskip("websocket", reason="websocket-client is not installed")
    if shutil.which("git") is None:
        pytest.skip("git is not installed: nbgitpuller needs it")
    chp = proxy_command()
    if chp is None or shutil.which("node") is None:
        pytest.skip("configurable-http-proxy could not be installed from npm (needs node and npm) into _build/hub/")
    return chp


def _kill_marked(marker: str) -> None:
    """End the processes this test started (their environment carries `marker`), and only those."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            env = (proc / "environ").read_bytes()
        except OSError:
            continue
        if f"GAMEKIT_HUB_TEST={marker}".encode() in env.split(b"\0"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(proc.name), signal.SIGKILL)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A running JupyterHub on 127.0.0.1; yields (base URL, admin token, homes folder)."""
    chp = _needs()
    import requests

    folder = tmp_path_factory.mktemp("hub")
    homes = folder / "homes"
    homes.mkdir()
    port, api_port, hub_port = free_port(), free_port(), free_port()
    token = secrets.token_hex(32)
    marker = uuid.uuid4().hex
    config = folder / "jupyterhub_config.py"
    config.write_text(
        f"""
c = get_config()  # noqa
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.command = [{chp!r}]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.should_start = True
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(homes)!r} + "/{{username}}"
c.Spawner.ip = "127.0.0.1"
c.Spawner.cmd = [{sys.executable!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.args = ["--ServerApp.allow_root=True", "--ServerApp.ip=127.0.0.1"]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = {STEP}
c.Spawner.http_timeout = {STEP}
c.Spawner.environment = {{"GAMEKIT_HUB_TEST": {marker!r}, "MPLBACKEND": "Agg", "NBGITPULLER_DEPTH": "0"}}
c.JupyterHub.concurrent_spawn_limit = {max(STUDENTS.values())}
c.JupyterHub.db_url = "sqlite:///" + {str(folder / "hub.sqlite")!r}
c.JupyterHub.cookie_secret_file = {str(folder / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(folder / "hub.pid")!r}
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
c.JupyterHub.services = [{{"name": "teacher", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "admin", "services": ["teacher"]}}]
"""
    )
    env = {**os.environ, "GAMEKIT_HUB_TEST": marker, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    log = (folder / "hub.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterhub", "-f", str(config)],
        cwd=folder,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STEP
        while True:
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{base}/hub/api/", timeout=10).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the hub did not start:\n" + (folder / "hub.log").read_text(errors="replace")[-3000:])
            time.sleep(1)
        yield base, token, homes
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        _kill_marked(marker)
        log.close()


class Student:
    """One simulated student: a hub user with their own token, doing what a browser would do."""

    def __init__(self, base: str, name: str, token: str):
        import requests

        self.base, self.name = base, name
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"token {token}"
        self.token = token

    def log_in(self) -> None:
        """The hub's login form (DummyAuthenticator: any password), as a browser sends it."""
        form = self.http.get(f"{self.base}/hub/login", timeout=STEP)
        assert form.status_code == 200, form.status_code
        xsrf = self.http.cookies.get("_xsrf", "")
        done = self.http.post(
            f"{self.base}/hub/login",
            data={"username": self.name, "password": "class", "_xsrf": xsrf},
            allow_redirects=False,
            timeout=STEP,
        )
        assert done.status_code == 302 and "/hub/login" not in done.headers.get("Location", ""), done.status_code

    def open_link(self, link: str) -> str:
        """Follow the link to the student's server; start it if it is not running. Returns the page's URL."""
        self.log_in()
        first = self.http.get(link, allow_redirects=False, timeout=STEP)
        assert first.status_code == 302, first.text[:500]
        target = urljoin(self.base, first.headers["Location"])
        if urlsplit(target).path.startswith(f"/hub/spawn/{self.name}"):
            # no server yet: the hub's spawn page starts one (no options form), then sends the student on
            spawn = self.http.get(target, allow_redirects=False, timeout=STEP)
            assert spawn.status_code in (200, 302), spawn.status_code
            (after,) = parse_qs(urlsplit(target).query)["next"]
            target = urljoin(self.base, after)
            deadline = time.monotonic() + STEP
            while not self._ready():
                assert time.monotonic() < deadline, f"{self.name}'s server did not start"
                time.sleep(1)
        assert f"/user/{self.name}/git-pull?" in target, target
        page = self.http.get(target, timeout=STEP)
        assert page.status_code == 200 and "nbgitpuller" in page.text.lower(), page.text[:500]
        return target

    def _ready(self) -> bool:
        info = self.http.get(f"{self.base}/hub/api/users/{self.name}", timeout=STEP).json()
        return bool(info.get("servers", {}).get("", {}).get("ready"))

    def pull(self, link_target: str) -> None:
        """What nbgitpuller's page does next: its sync API, as a stream of events, to the end."""
        api = link_target.replace("/git-pull?", "/git-pull/api?", 1)
        with self.http.get(api, stream=True, timeout=STEP) as events:
            assert events.status_code == 200
            text = ""
            for line in events.iter_lines(decode_unicode=True):
                text += (line or "") + "\n"
                if line and line.startswith("data:"):
                    data = json.loads(line[5:])
                    if data.get("phase") == "finished":
                        return
                    assert data.get("phase") != "error", data
        raise AssertionError(f"the pull did not finish:\n{text[-2000:]}")

    def server(self, path: str) -> str:
        return f"{self.base}/user/{self.name}/{path}"

    def notebook(self, path: str) -> dict:
        got = self.http.get(self.server(f"api/contents/{path}"), params={"content": "1"}, timeout=STEP)
        assert got.status_code == 200, got.text[:300]
        return got.json()["content"]

    def save(self, path: str, nb: dict) -> None:
        put = self.http.put(self.server(f"api/contents/{path}"), json={"type": "notebook", "content": nb}, timeout=STEP)
        assert put.status_code == 200, put.text[:300]

    def run_cells(self, path: str, sources: list[str]) -> tuple[float, list[list[dict]]]:
        """Start a kernel for `path`, run `sources` in it; (seconds to the first cell's reply, outputs per cell)."""
        import websocket

        t0 = time.monotonic()
        session = self.http.post(
            self.server("api/sessions"),
            json={"path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}},
            timeout=STEP,
        )
        assert session.status_code == 201, session.text[:300]
        kernel = session.json()["kernel"]["id"]
        ws_url = self.server(f"api/kernels/{kernel}/channels").replace("http://", "ws://")
        ws = websocket.create_connection(ws_url, header=[f"Authorization: token {self.token}"], timeout=STEP)
        first: float | None = None
        outputs: list[list[dict]] = []
        try:
            for source in sources:
                msg_id = uuid.uuid4().hex
                ws.send(json.dumps({
                    "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": self.name,
                               "session": uuid.uuid4().hex, "version": "5.3", "date": ""},
                    "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                    "content": {"code": source, "silent": False, "store_history": True, "user_expressions": {},
                                "allow_stdin": False, "stop_on_error": False},
                }))  # fmt: skip
                got: list[dict] = []
                deadline = time.monotonic() + STEP
                replied = idle = False
                while not (replied and idle):  # the reply (shell) and the outputs (iopub) come in either order
                    assert time.monotonic() < deadline, f"a cell did not finish for {self.name}"
                    msg = json.loads(ws.recv())
                    if msg.get("parent_header", {}).get("msg_id") != msg_id:
                        continue
                    kind = msg["header"]["msg_type"]
                    if kind in ("stream", "error", "execute_result", "display_data"):
                        got.append({"type": kind, **msg["content"]})
                    replied = replied or kind == "execute_reply"
                    idle = idle or (kind == "status" and msg["content"].get("execution_state") == "idle")
                if first is None:
                    first = time.monotonic() - t0
                outputs.append(got)
        finally:
            ws.close()
            self.http.delete(self.server(f"api/sessions/{session.json()['id']}"), timeout=STEP)
        assert first is not None
        return first, outputs


class GitServer:
    """The edition on a git server the hub clones from over http (git's "dumb" protocol, served
    by Python's http.server on 127.0.0.1): a bare copy, updated after each publish."""

    def __init__(self, edition: Path, folder: Path):
        self.edition, self.bare = edition, folder / "served" / "lessons.git"
        subprocess.run(["git", "clone", "-q", "--bare", str(edition), str(self.bare)], check=True)
        self._refresh()
        port = free_port()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "http.server",
                str(port),
                "--bind",
                "127.0.0.1",
                "--directory",
                str(self.bare.parent),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.url = f"http://127.0.0.1:{port}/lessons.git"
        import requests

        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{self.url}/info/refs", timeout=5).status_code == 200:
                    break
            assert time.monotonic() < deadline, "the git server did not start"
            time.sleep(0.5)

    def _refresh(self) -> None:
        subprocess.run(["git", "-C", str(self.bare), "update-server-info"], check=True)

    def push(self) -> None:
        subprocess.run(["git", "-C", str(self.edition), "push", "-q", str(self.bare), "main"], check=True)
        self._refresh()

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


#: Per edition language: what the checks say (not yet, the form is right), the start page's way to hand
#: in, and the explanation a student writes for exercise 1.6.
SAYS = {
    "en": ("not yet", "pass", "File → Download", "a die brings chance, so Zermelo's theorem does not apply."),
    "de": (
        "noch nicht",
        "bestanden",
        "Datei → Herunterladen",
        "ein Würfel bringt Zufall, also gilt Zermelos Satz nicht.",
    ),
}


def _lesson_01_edition(folder: Path, lang: str = "en"):
    from gamekit.course import publish

    master = folder / "masters" / "01-subtraction-game.ipynb"
    master.parent.mkdir(parents=True)
    shutil.copyfile(next((ROOT / "notebooks").glob("01-*.ipynb")), master)
    edition = folder / "lessons"
    done = publish.publish(edition, [master], folder / "assign", run_tests=False, lang=lang)
    [lesson] = [p.name for p in done.lessons if p.name.startswith("01-")]  # the start page is the other one
    return master, edition, lesson


def _republish_with_a_change(master: Path, edition: Path, lang: str = "en") -> str:
    import nbformat

    from gamekit.course import publish

    nb = nbformat.read(master, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell(UPDATE, metadata={"slideshow": {"slide_type": "slide"}}))
    nbformat.write(nb, master)
    done = publish.publish(edition, [master], master.parent.parent / "assign", run_tests=False, lang=lang)
    assert done.commit is not None
    return done.commit


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_class_pulls_lesson_01_runs_its_checks_keeps_its_edits_and_gets_the_update(hub, tmp_path, lang):
    """In each edition: the German one's checks speak German in the students' kernels (no cell edited:
    the edition's package says its language), its Lab serves German menus, its feedback is German."""
    master, edition, lesson = _lesson_01_edition(tmp_path, lang)
    server = GitServer(edition, tmp_path)
    try:
        _a_class_on_the_hub(hub, tmp_path, master, edition, lesson, server, lang)
    finally:
        server.close()


def _a_class_on_the_hub(
    hub, tmp_path: Path, master: Path, edition: Path, lesson: str, server: GitServer, lang: str = "en"
) -> None:
    import requests

    from gamekit.course import links

    base, admin, homes = hub
    with pytest.raises(ValueError, match="cannot pull"):  # the hub has no access to the teacher's disk
        links.nbgitpuller_link(base, f"file://{edition}", "main", lesson)
    link = links.nbgitpuller_link(base, server.url, "main", lesson)
    folder, file = links.urlpath_file(link)
    path = f"{folder}/{file}"
    teacher = requests.Session()
    teacher.headers["Authorization"] = f"token {admin}"
    students = []
    class_size = STUDENTS[lang]
    for k in range(class_size):
        name = f"student{k:02d}" if lang == "en" else f"{lang}student{k:02d}"
        assert teacher.post(f"{base}/hub/api/users/{name}", timeout=STEP).status_code in (201, 409)
        token = teacher.post(f"{base}/hub/api/users/{name}/tokens", json={"note": "test"}, timeout=STEP).json()["token"]
        students.append(Student(base, name, token))

    def first_visit(student: Student) -> tuple[float, str]:
        start = time.monotonic()
        target = student.open_link(link)
        student.pull(target)
        landed = student.http.get(student.server(f"lab/tree/{path}"), timeout=STEP)
        assert landed.status_code == 200, landed.status_code
        nb = student.notebook(path)
        code = [c["source"] for c in nb["cells"] if c["cell_type"] == "code"]
        setup = next(i for i, s in enumerate(code) if "PublicChecks(" in s)
        checks = [s for s in code if re.search(r"^grader\.check\(", s, re.M) and "PublicChecks(" not in s]
        # the set-up cells (imports, seeds, the checker), then every public check, on the unanswered copy
        before_first = time.monotonic() - start
        first, outputs = student.run_cells(path, code[: setup + 1] + checks)
        said = [" ".join(str(o.get("text", "")) + json.dumps(o.get("data", {})) for o in out) for out in outputs]
        assert all(o["type"] != "error" for out in outputs[: setup + 1] for o in out), outputs[: setup + 1]
        not_yet, passed = SAYS[lang][:2]
        unclear = [s[:300] for s in said[setup + 1 :] if not_yet not in s and passed not in s]
        assert checks and not unclear, unclear
        if lang != "en":  # Lab's own menus in the edition's language (its language pack, from the requirements)
            pack = student.http.get(student.server("lab/api/translations/de_DE"), timeout=STEP)
            assert pack.status_code == 200 and "Datei" in pack.text, pack.text[:300]
        answer = next(c for c in nb["cells"] if "otter_answer_cell" in c.get("metadata", {}).get("tags", []))
        answer["source"] = f"# {student.name} was here\n" + "".join(answer["source"])
        student.save(path, nb)
        return before_first + first, target

    with ThreadPoolExecutor(max_workers=class_size) as pool:
        visits = list(pool.map(_attempt(first_visit), students))
    _republish_with_a_change(master, edition, lang)
    server.push()

    def second_visit(student: Student, target: str) -> None:
        student.pull(target)
        nb = student.notebook(path)
        text = json.dumps(nb)
        assert f"# {student.name} was here" in text, "the student's edit was lost"
        assert UPDATE in text, "the teacher's update did not arrive"
        assert (homes / student.name / path).is_file()

    ok = []
    with ThreadPoolExecutor(max_workers=class_size) as pool:
        futures = [pool.submit(_attempt(second_visit), s, v[1]) for s, v in zip(students, visits) if v is not None]
        ok = [f.result() is not None for f in futures]
    firsts = [v[0] for v in visits if v is not None]
    k = sum(ok)
    median = statistics.median(firsts) if firsts else float("nan")
    print(f"\nhub round trip: {k}/{class_size} students, median time to the first cell {median:.1f} s")
    failures = [e for e in _FAILURES]
    assert k == class_size, failures[:3]
    handed_in = {}
    for number, student in enumerate(students):
        handed_in[4700 + number] = _hand_in(student, folder, master, even=number % 2 == 0, lang=lang)
    _grade_the_class(tmp_path, handed_in, [s.name for s in students], lang)


def _hand_in(student: Student, folder: str, master: Path, even: bool, lang: str = "en") -> bytes:
    """What a student does after the start page's instructions: open the start page, follow its link to
    the lesson, answer (even students 1.1 right, everyone 1.6 in words), save, File → Download."""
    import nbformat
    from chapter04 import fill, solutions

    from gamekit.course.titles import START_PAGE

    start = student.notebook(f"{folder}/{START_PAGE}")
    text = "\n".join("".join(c["source"]) for c in start["cells"] if c["cell_type"] == "markdown")
    [target] = re.findall(r"\]\((01-[^)]+\.ipynb)\)", text)
    assert SAYS[lang][2] in text and "pip" not in text
    path = f"{folder}/{target}"
    nb = nbformat.from_dict(student.notebook(path))
    answers = {"q1_6": [f"{student.name}: {SAYS[lang][3]}"]}
    if even:
        answers["q1_1"] = solutions(nbformat.read(master, as_version=4))["q1_1"]
    student.save(path, fill(nb, nbformat.read(master, as_version=4), answers))
    # File → Download: JupyterLab fetches the file with download=1 from the files handler
    got = student.http.get(student.server(f"files/{path}"), params={"download": "1"}, timeout=STEP)
    assert got.status_code == 200 and "attachment" in got.headers.get("Content-Disposition", ""), got.headers
    downloaded = [c.source for c in nbformat.reads(got.content.decode("utf-8"), as_version=4).cells]
    assert downloaded == [c["source"] for c in student.notebook(path)["cells"]]  # the saved lesson, answers in
    return got.content


def _grade_the_class(tmp_path: Path, handed_in: dict[int, bytes], names: list[str], lang: str = "en") -> None:
    """The teacher's side: Moodle's archive of the downloaded files graded into the German worksheet,
    the hand points of 1.6 merged: full totals, 0 bytes changed outside grade and feedback."""
    import csv
    import io

    import moodle
    from moodle import FEEDBACK, GRADE

    archive = tmp_path / "Lektion 01-Alle Abgaben.zip"
    moodle.moodle_archive(archive, handed_in, {})
    pids = sorted(handed_in) + [4799]  # 4799 handed in nothing
    sheet = tmp_path / "Bewertungen.csv"
    original = moodle.worksheet_bytes(moodle.worksheet_rows(pids, "de"))
    sheet.write_bytes(original)
    grades = tmp_path / "grades"
    [zip_path] = (tmp_path / "assign" / "autograder").glob("*.zip")
    course = [sys.executable, "-m", "gamekit.course"]
    run = subprocess.run(
        [*course, "grade", str(archive), "--autograder", str(zip_path), "--grades", str(grades),
         "--moodle-worksheet", str(sheet), "--jobs", "2", "--lang", lang],
        capture_output=True, text=True, timeout=1800, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"{len(handed_in)} row(s) filled" in run.stdout and "merge-points" in run.stdout
    name = zip_path.name.removesuffix("-autograder.zip")
    page = (grades / "hand" / name / "exercise-1.6.html").read_text(encoding="utf-8")
    assert all(f"{name}: {SAYS[lang][3][:20]}" in page for name in names)
    points_file = grades / f"{name}-hand-points.csv"
    table = list(csv.reader(io.StringIO(points_file.read_text(encoding="utf-8"))))
    hand = {row[0]: ("2" if int(row[0]) % 2 else "1,5") for row in table[1:]}  # a German decimal comma
    for row in table[1:]:
        row[2] = hand[row[0]]
    points_file.write_text("".join(";".join(r) + "\n" for r in table), encoding="utf-8")
    merged = subprocess.run(
        [*course, "merge-points", str(points_file), "--grades", str(grades), "--moodle-worksheet", str(sheet),
         "--lang", lang],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert merged.returncode == 0, merged.stderr[-3000:]
    rows = {r["student"]: r for r in csv.DictReader((grades / f"{name}.csv").open(encoding="utf-8"))}
    before = list(csv.reader(io.StringIO(original.decode("utf-8-sig"), newline="")))
    after = list(csv.reader(io.StringIO(sheet.read_bytes().decode("utf-8-sig"), newline="")))
    assert {k for a, b in zip(before, after) for k in range(len(a)) if a[k] != b[k]} == {GRADE, FEEDBACK}
    assert after[-1] == before[-1]  # 4799: no submission, the row as it was
    from gamekit.course.grade import Autograder

    possible = sum(q["points"] for q in Autograder.load(zip_path).questions)  # 7: five automatic, 1.6 by hand
    for pid in handed_in:
        row = rows[str(pid)]
        assert float(row["Exercise 1.1"]) == (1.0 if (pid - 4700) % 2 == 0 else 0.0), row  # the even ones' 1.1
        auto = sum(float(v) for k, v in row.items() if k.startswith("Exercise ") and "by hand" not in k)
        total = auto + float(hand[str(pid)].replace(",", "."))
        assert float(row["total"]) == total, row
        [sheet_row] = [r for r in after if r[0].endswith(str(pid))]
        assert sheet_row[GRADE] == f"{total / possible * 100:.2f}".replace(".", ","), (pid, sheet_row[GRADE])
        exercise, by_teacher = (
            ("Exercise 1.6: ", "(graded by your teacher)")
            if lang == "en"
            else ("Aufgabe 1.6: ", "(bewertet von deiner Lehrkraft)")
        )
        assert exercise in sheet_row[FEEDBACK] and by_teacher in sheet_row[FEEDBACK], sheet_row[FEEDBACK]


_FAILURES: list[str] = []


def _attempt(step):
    """`step` as a function that returns None (and records why) when it fails for that student."""

    def run(*args):
        try:
            result = step(*args)
            return True if result is None else result
        except Exception as exc:  # one student's failure is counted, the others go on
            _FAILURES.append(f"{type(exc).__name__}: {str(exc)[:800]}")
            return None

    return run
