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
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from ..i18n import _, pgettext
from .titles import lesson_title

__all__ = [
    "binder_link",
    "download_link",
    "edition_lessons",
    "forge_of",
    "FORGES",
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
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{what} must be an http(s) URL such as https://hub.example.edu, not {url!r}")
    if parts.query or parts.fragment:
        raise ValueError(f"{what} must not carry a query or fragment: {url!r}")
    return url.rstrip("/")


def _check_repo(repo: str) -> str:
    """`repo` if the hub can clone it: an http(s) URL of a git server, else a refusal that says why."""
    parts = urlsplit(repo)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        scp = re.match(r"^[\w.-]+@[\w.-]+:", repo)  # git@host:group/lessons.git
        if scp or parts.scheme == "ssh":
            kind = "an ssh address (the hub has no key for it)"
        elif parts.scheme in ("", "file"):
            kind = "a path on this machine"
        else:
            kind = f"a {parts.scheme}: URL"
        raise ValueError(
            f"--repo {repo!r} is {kind}, which students' hub cannot pull from: push the edition to a git "
            "server and give its https URL, such as https://git.example.edu/course/lessons.git"
        )
    return _check_url(repo, "--repo")


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
    hub, repo = _check_url(hub, "--hub"), _check_repo(repo)
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
    repo = _check_repo(repo)
    host, path = _host_parts(repo)
    if host == "github.com":
        spec = f"gh/{path}/{quote(branch, safe='')}"
    elif host == "gitlab.com":
        spec = f"gl/{quote(path, safe='')}/{quote(branch, safe='')}"
    else:
        spec = f"git/{quote(repo, safe='')}/{quote(branch, safe='')}"
    return f"{binder.rstrip('/')}/v2/{spec}?" + urlencode({"urlpath": f"lab/tree/{lesson}"}, quote_via=quote, safe="")


#: The forges whose raw-file URL `download_link` knows (Forgejo is a fork of Gitea: the same form).
FORGES = ("github", "gitlab", "gitea", "forgejo")


def forge_of(repo: str, forge: str | None = None) -> str:
    """Which forge serves `repo`: `forge` if given (one of `FORGES`), else what the host's name says
    (github.com, gitlab.com, codeberg.org, or "gitlab", "gitea", "forgejo" in it). A host that says
    nothing (`git.uni.de` is a GitLab at one university and a Gitea at the next) is refused."""
    if forge is not None:
        if forge not in FORGES:
            raise ValueError(f"--forge {forge!r} is not known: use one of {', '.join(FORGES)}")
        return forge
    host, _path = _host_parts(_check_repo(repo))
    host = host.rsplit("@", 1)[-1].split(":", 1)[0]
    if host in ("github.com", "www.github.com"):
        return "github"
    if host == "codeberg.org":
        return "forgejo"
    for name in ("gitlab", "gitea", "forgejo"):
        if name in host:
            return name
    raise ValueError(
        f"cannot tell which forge serves {host!r} from its name, so not which download links work: "
        f"say it with --forge {'|'.join(FORGES)} (the software your git server runs; its web pages name it)"
    )


def download_link(repo: str, branch: str, lesson: str, forge: str | None = None) -> str:
    """The raw file of `lesson` on the repository's forge (`forge_of`): GitHub's
    raw.githubusercontent.com (on another host, GitHub Enterprise's `/raw/BRANCH/PATH`), GitLab's
    `/-/raw/BRANCH/PATH`, Gitea's and Forgejo's `/raw/branch/BRANCH/PATH`."""
    repo = _check_repo(repo)
    kind = forge_of(repo, forge)
    host, path = _host_parts(repo)
    b, f = quote(branch, safe=""), quote(lesson)
    base = repo[:-4] if repo.endswith(".git") else repo
    if kind == "github":
        if host in ("github.com", "www.github.com"):
            return f"https://raw.githubusercontent.com/{path}/{b}/{f}"
        return f"{base}/raw/{b}/{f}"
    if kind == "gitlab":
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


def edition_lessons(edition: Path) -> list[tuple[str, str]]:
    """[(file, title)] of the notebooks at the top of a published edition, in order."""
    edition = Path(edition)
    if not edition.is_dir():
        raise ValueError(f"{edition} is not a published edition (run `python -m gamekit.course publish {edition}`)")
    files = sorted(p for p in edition.glob("*.ipynb") if p.is_file() and not p.is_symlink())
    if not files:
        raise ValueError(f"{edition} has no lessons (.ipynb at its top): publish it first")
    return [(p.name, lesson_title(p.name, p)) for p in files]


def lesson_links(
    hub: str, repo: str, branch: str, lessons: Sequence[tuple[str, str]], forge: str | None = None
) -> list[LessonLinks]:
    """The links of every lesson `(file, title)`; `forge` as in `forge_of` (checked before any link is made)."""
    if not re.fullmatch(r"[A-Za-z0-9._/-]+", branch) or ".." in branch:
        raise ValueError(f"--branch {branch!r} is not a branch name")
    forge = forge_of(repo, forge)
    return [
        LessonLinks(
            f,
            t,
            nbgitpuller_link(hub, repo, branch, f),
            binder_link(repo, branch, f),
            download_link(repo, branch, f, forge),
        )
        for f, t in lessons
    ]


def render(links: Sequence[LessonLinks], form: str) -> str:
    """The links as `markdown` (a table), `html` (a list, for a web page or Moodle's editor) or
    `moodle` (one block per lesson with the fields of Moodle's "URL" resource: name, external URL, description),
    in the language in force (gamekit.i18n; Moodle's field names as a Moodle in that language shows them)."""
    if form == "markdown":
        # TRANSLATORS: a markdown table's header row: keep the four cells and their pipes.
        rows = [_("| lesson | on the hub | Binder (best effort) | download |"), "|---|---|---|---|"]
        rows += [
            # TRANSLATORS: a markdown table's row under "| lesson | on the hub | Binder | download |": keep the
            # pipes, the links' [text](target) form and every placeholder.
            _("| {title} | [open]({hub}) | [Binder]({binder}) | [{file}]({download}) |").format(
                title=ln.title, hub=ln.hub, binder=ln.binder, file=ln.file, download=ln.download
            )
            for ln in links
        ]
        return "\n".join(rows) + "\n"
    if form == "html":
        e = html.escape
        items = [
            "<li>"
            # TRANSLATORS: HTML: keep the tags, their attributes and every placeholder as they are.
            + _(
                '{title}: <a href="{hub}">open on the hub</a> (or <a href="{binder}">on Binder, best effort, '
                'nothing is kept</a>; <a href="{download}" download>download {file}</a>)'
            ).format(title=e(ln.title), hub=e(ln.hub), binder=e(ln.binder), download=e(ln.download), file=e(ln.file))
            + "</li>"
            for ln in links
        ]
        return '<ul class="gamekit-lessons">\n' + "\n".join(items) + "\n</ul>\n"
    if form == "moodle":
        # the fields of Moodle's "URL" resource, named as Moodle shows them (the teacher copies each into its field)
        # TRANSLATORS: this and the next two: a label of Moodle's form for a URL resource, as that Moodle shows it.
        name = pgettext("Moodle's URL resource: a field", "Name")
        url = pgettext("Moodle's URL resource: a field", "External URL")
        about = pgettext("Moodle's URL resource: a field", "Description")
        blocks = [
            f"{name}: {ln.title}\n{url}: {ln.hub}\n{about}: "
            + _(
                "Opens {file} in your JupyterHub home (your edits are kept when the lesson is updated). Without "
                "the hub: Binder (best effort, nothing is kept) {binder} or download {download}"
            ).format(file=ln.file, binder=ln.binder, download=ln.download)
            + "\n"
            for ln in links
        ]
        return "\n".join(blocks)
    raise ValueError(f"unknown format {form!r}: use markdown, html or moodle")
