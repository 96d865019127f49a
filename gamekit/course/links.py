"""One link per lesson: nbgitpuller on the class's JupyterHub, Binder (best effort), a download.

    python -m gamekit.course links --hub https://hub.example.edu --repo https://git.example.edu/course/lessons
                                   [--branch main] [--edition OUT] [--format markdown|html|moodle|all]

An nbgitpuller link (`HUB/hub/user-redirect/git-pull?repo=...&branch=...&targetpath=...&urlpath=...`)
logs the student in, clones the student edition (`publish`) into their home the first time and
merges the teacher's new commits into it later (their own edits stay), then opens the lesson in
JupyterLab. The link names the folder it clones into (`targetpath`, the repository's name) so
that `urlpath` (`lab/tree/<folder>/<lesson>`) points at the lesson whatever the hub's defaults.

A Binder link starts a temporary server from the same repository (mybinder.org or another
BinderHub: best effort, slow to start, nothing is kept), and a download link fetches the lesson
alone (it needs the course's package installed: `requirements.txt` of the edition).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, quote, urlencode, urlsplit

__all__ = [
    "binder_link",
    "download_link",
    "edition_lessons",
    "LessonLinks",
    "lesson_links",
    "nbgitpuller_link",
    "render",
    "target_folder",
    "urlpath_file",
]

BINDER = "https://mybinder.org"


def _check_url(url: str, what: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.netloc):
        raise ValueError(f"{what} must be an http(s) URL such as https://hub.example.edu, not {url!r}")
    if parts.query or parts.fragment:
        raise ValueError(f"{what} must not carry a query or fragment: {url!r}")
    return url.rstrip("/")


def target_folder(repo: str) -> str:
    """The folder in the student's home the edition is cloned into: the repository's name
    (without `.git`)."""
    name = urlsplit(repo).path.rstrip("/").rsplit("/", 1)[-1]
    name = name[:-4] if name.endswith(".git") else name
    if not name or not re.fullmatch(r"[A-Za-z0-9._-]+", name) or name in (".", ".."):
        raise ValueError(f"cannot name a folder after the repository {repo!r}: give a URL that ends in its name")
    return name


def nbgitpuller_link(hub: str, repo: str, branch: str, lesson: str) -> str:
    """The link that pulls the edition into the student's home on `hub` and opens `lesson` in JupyterLab."""
    hub, repo = _check_url(hub, "--hub"), _check_url(repo, "--repo")
    folder = target_folder(repo)
    query = {
        "repo": repo,
        "branch": branch,
        "targetpath": folder,
        "urlpath": f"lab/tree/{folder}/{lesson}",
    }
    return f"{hub}/hub/user-redirect/git-pull?" + urlencode(query, quote_via=quote, safe="")


def urlpath_file(link: str) -> tuple[str, str]:
    """(folder, file) that an nbgitpuller link's `urlpath` opens; ValueError if it opens no file of its clone."""
    query = parse_qs(urlsplit(link).query, strict_parsing=True)
    (urlpath,) = query["urlpath"]
    (folder,) = query["targetpath"]
    prefix = f"lab/tree/{folder}/"
    if not urlpath.startswith(prefix):
        raise ValueError(f"urlpath {urlpath!r} is not inside the folder {folder!r} the link clones into")
    return folder, urlpath[len(prefix) :]


def _host_parts(repo: str) -> tuple[str, str]:
    parts = urlsplit(repo)
    path = parts.path.strip("/")
    return parts.netloc.lower(), path[:-4] if path.endswith(".git") else path


def binder_link(repo: str, branch: str, lesson: str, binder: str = BINDER) -> str:
    """A Binder link that opens `lesson` (GitHub and GitLab by their short forms, any other git URL as such)."""
    repo = _check_url(repo, "--repo")
    host, path = _host_parts(repo)
    if host == "github.com":
        spec = f"gh/{path}/{quote(branch, safe='')}"
    elif host == "gitlab.com":
        spec = f"gl/{quote(path, safe='')}/{quote(branch, safe='')}"
    else:
        spec = f"git/{quote(repo, safe='')}/{quote(branch, safe='')}"
    return f"{binder.rstrip('/')}/v2/{spec}?" + urlencode({"urlpath": f"lab/tree/{lesson}"}, quote_via=quote, safe="")


def download_link(repo: str, branch: str, lesson: str) -> str:
    """The raw file of `lesson` on the repository's host (GitHub, GitLab, else Gitea/Forgejo's form)."""
    repo = _check_url(repo, "--repo")
    host, path = _host_parts(repo)
    b, f = quote(branch, safe=""), quote(lesson)
    if host == "github.com":
        return f"https://raw.githubusercontent.com/{path}/{b}/{f}"
    base = repo[:-4] if repo.endswith(".git") else repo
    if host == "gitlab.com" or "gitlab" in host:
        return f"{base}/-/raw/{b}/{f}?inline=false"
    return f"{base}/raw/branch/{b}/{f}"


@dataclass(frozen=True)
class LessonLinks:
    """The three links of one lesson."""

    file: str
    title: str
    hub: str
    binder: str
    download: str


def _title(path: Path) -> str:
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "markdown":
                text = "".join(cell.get("source", ""))
                m = re.search(r"^#\s+(.+)$", text, re.M)
                if m:
                    return re.sub(r"[*_`]", "", m.group(1)).strip()
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    return path.stem


def edition_lessons(edition: Path) -> list[tuple[str, str]]:
    """[(file, title)] of the notebooks at the top of a published edition, in order."""
    edition = Path(edition)
    if not edition.is_dir():
        raise ValueError(f"{edition} is not a published edition (run `python -m gamekit.course publish {edition}`)")
    files = sorted(p for p in edition.glob("*.ipynb") if p.is_file() and not p.is_symlink())
    if not files:
        raise ValueError(f"{edition} has no lessons (.ipynb at its top): publish it first")
    return [(p.name, _title(p)) for p in files]


def lesson_links(hub: str, repo: str, branch: str, lessons: Sequence[tuple[str, str]]) -> list[LessonLinks]:
    """The links of every lesson `(file, title)`."""
    if not re.fullmatch(r"[A-Za-z0-9._/-]+", branch) or ".." in branch:
        raise ValueError(f"--branch {branch!r} is not a branch name")
    return [
        LessonLinks(
            f, t, nbgitpuller_link(hub, repo, branch, f), binder_link(repo, branch, f), download_link(repo, branch, f)
        )
        for f, t in lessons
    ]


def render(links: Sequence[LessonLinks], form: str) -> str:
    """The links as `markdown` (a table), `html` (a list, for a web page or Moodle's editor) or
    `moodle` (one block per lesson with the fields of Moodle's "URL" resource: name, external URL, description)."""
    if form == "markdown":
        rows = ["| lesson | on the hub | Binder (best effort) | download |", "|---|---|---|---|"]
        rows += [
            f"| {ln.title} | [open]({ln.hub}) | [Binder]({ln.binder}) | [{ln.file}]({ln.download}) |" for ln in links
        ]
        return "\n".join(rows) + "\n"
    if form == "html":
        e = html.escape
        items = [
            f'<li>{e(ln.title)}: <a href="{e(ln.hub)}">open on the hub</a> '
            f'(or <a href="{e(ln.binder)}">on Binder, best effort, nothing is kept</a>; '
            f'<a href="{e(ln.download)}" download>download {e(ln.file)}</a>)</li>'
            for ln in links
        ]
        return '<ul class="gamekit-lessons">\n' + "\n".join(items) + "\n</ul>\n"
    if form == "moodle":
        blocks = [
            f"Name: {ln.title}\nExternal URL: {ln.hub}\n"
            f"Description: Opens {ln.file} in your JupyterHub home (your edits are kept when the lesson is "
            f"updated). Without the hub: Binder (best effort, nothing is kept) {ln.binder} or download "
            f"{ln.download}\n"
            for ln in links
        ]
        return "\n".join(blocks)
    raise ValueError(f"unknown format {form!r}: use markdown, html or moodle")
