"""The tournament as static HTML: a leaderboard page and a replay that needs no kernel.

`leaderboard_html` writes one self-contained page (no network, no external files), made to be
read from the back of a room on a 1280x720 projector (no text under 14 px) and by a screen reader
(headings in order, every chart with a text alternative, named controls, the replay's moves
announced): the
standings with each rating's interval drawn as an inline SVG error bar (or the statement that the
games are too few for intervals), the pairing matrix (wins–draws–losses and score), each two
neighbours' difference interval with Holm's correction, the forfeit log, the rejected submissions, and a replay of every
game. `replay_html` is the replay alone, a fragment to show in a notebook: the game's records
are embedded as JSON and a few lines of plain JavaScript step through them, so it works in the
exported HTML page and offline. Without JavaScript the start position and the moves still show.

Agents appear by their display names (NAME) and games by readable labels ("perfect vs random
mover, start 2, seats swapped"); the submission files' names show only with `show_files=True`
(the teacher's `report --show-files`).
"""

from __future__ import annotations

import hashlib
import html
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .results import HOLM_NOTE, INTERVAL_METHOD, ONE_SIDED_NOTE, Results, Standing

# The course's colour language (gamekit.views.colors; views sit above this layer, so the values are
# repeated here): red = the row agent takes the points, blue = it gives them away.
RED, BLUE = "#d62728", "#1f77b4"

#: Smallest text on the page, in CSS pixels (readable on a 1280x720 projector, as on the slides).
MIN_TEXT_PX = 14
STYLE = """
body{font-family:system-ui,sans-serif;font-size:18px;margin:1.5em;max-width:70em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f3f3f3}td.name,th.name{text-align:left}.small{font-size:.85em;color:#444}td .small{color:#222}
button,select{font:inherit}:focus-visible{outline:3px solid #1f4e8c;outline-offset:2px}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _json_for_script(data: Any) -> str:
    """JSON that is safe inside a <script> element."""
    return json.dumps(data, sort_keys=True).replace("</", "<\\/").replace("<!--", "<\\!--")


def game_label(game_id: str, names: dict[str, str], show_files: bool = False) -> str:
    """A game's id as people read it: "perfect vs random mover, start 2, seats swapped".

    Scheduled games have ids "a~b~start~order" (see `schedule`); any other id is shown as it is.
    With `show_files`, the raw id follows in brackets.
    """
    parts = game_id.split("~")
    if len(parts) != 4 or not (parts[2].isdigit() and parts[3] in ("0", "1")):
        return game_id
    a, b, start, order = parts
    first, second = (a, b) if order == "0" else (b, a)
    label = f"{names.get(first, first)} vs {names.get(second, second)}, start {int(start) + 1}"
    label += ", seats swapped" if order == "1" else ""
    return label + (f" [{game_id}]" if show_files else "")


def ratings_alt(rows: Sequence[Standing]) -> str:
    """The rating chart in words: each agent's rating and interval, best first."""
    rated = [s for s in rows if math.isfinite(s.rating)]
    if rated and not all(math.isfinite(v) for s in rated for v in (s.low, s.high)):
        said = "; ".join(f"{s.name} {s.rating:.0f}" for s in rated)
        return f"Dot chart: ratings of {len(rated)} agents, best first, no intervals (too few games): {said}"
    said = "; ".join(f"{s.name} {s.rating:.0f} [{s.low:.0f}, {s.high:.0f}]" for s in rated)
    return f"Dot chart: ratings of {len(rated)} agents with 95% intervals, best first: {said or 'none yet'}"


def ratings_svg(rows: Sequence[Standing], width: int = 640) -> str:
    """Each agent's rating as a dot with its interval as a bar (inline SVG, best at the top)."""
    finite = [v for s in rows for v in (s.low, s.high, s.rating) if math.isfinite(v)]
    lo, hi = (min(finite), max(finite)) if finite else (-1.0, 1.0)
    if hi - lo < 1:
        lo, hi = lo - 1, hi + 1
    pad, left, row_h = 24, 230, 30
    height = row_h * len(rows) + 44

    def x(v: float) -> float:
        return left + (width - left - pad) * (v - lo) / (hi - lo)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="{_e(ratings_alt(rows))}" style="font:16px sans-serif">'
    ]
    zero = x(0.0) if lo <= 0 <= hi else None
    if zero is not None:
        parts.append(
            f'<line x1="{zero:.1f}" y1="5" x2="{zero:.1f}" y2="{height - 25}" stroke="#bbb" stroke-dasharray="3,3"/>'
        )
    for k, s in enumerate(rows):
        y = 18 + k * row_h
        if not math.isfinite(s.rating):
            parts.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{_e(s.name[:24])} (no rating yet)</text>')
            continue
        parts.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{_e(s.name[:24])}</text>')
        said = f"{s.rating:.0f}"
        if math.isfinite(s.low) and math.isfinite(s.high):
            parts.append(
                f'<line x1="{x(s.low):.1f}" y1="{y}" x2="{x(s.high):.1f}" y2="{y}" stroke="{BLUE}" stroke-width="3"/>'
            )
            said += f" [{s.low:.0f}, {s.high:.0f}]"
        parts.append(
            f'<circle cx="{x(s.rating):.1f}" cy="{y}" r="5" fill="{RED}"><title>{_e(s.name)}: {said}</title></circle>'
        )
    for tick in _ticks(lo, hi):
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 8}" text-anchor="middle" fill="#444">{tick:.0f}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    raw = (hi - lo) / n
    step = 10 ** math.floor(math.log10(raw))
    step = next(m * step for m in (1, 2, 5, 10) if m * step >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def replay_html(records: Sequence[dict[str, Any]], title: str = "Replay", show_files: bool = False) -> str:
    """A self-contained replay of `records` (pick a game, step through it) as an HTML fragment.

    Styles are inline, so the fragment looks the same in a notebook, its exported page and the
    leaderboard page; its text is at least 16 px, its controls are named, and each step is
    announced to a screen reader (a polite live region). Games are listed by readable labels
    (`game_label`; raw ids too with `show_files`).
    """
    names = {a: (n or a) for r in records for a, n in zip(r["agents"], r["names"])}
    games = [
        {
            "id": game_label(r["id"], names, show_files),
            "players": [r["names"][s] or r["agents"][s] for s in (0, 1)],
            "moves": r["moves"],
            "movers": r.get("movers", [k % 2 for k in range(len(r["moves"]))]),
            "shown": r["shown"],
            "result": _result_text(r),
        }
        for r in records
    ]
    uid = "gk" + hashlib.sha256("|".join(r["id"] for r in records).encode()).hexdigest()[:10]
    first = games[0] if games else {"shown": [""], "moves": [], "result": "", "id": "", "players": ["", ""]}
    options = "".join(f'<option value="{k}">{_e(g["id"])}</option>' for k, g in enumerate(games))
    script = f"""
(function(){{
  var games = JSON.parse(document.getElementById("{uid}-data").textContent);
  var root = document.getElementById("{uid}"), g = 0, k = 0;
  function q(name){{ return root.querySelector("[data-role=" + name + "]"); }}
  function show(){{
    var game = games[g], n = game.moves.length;
    k = Math.max(0, Math.min(k, n));
    q("players").textContent = "seat 0: " + game.players[0] + "  \u2014  seat 1: " + game.players[1];
    q("board").textContent = game.shown[k];
    var text = k === 0 ? "start position (" + n + " moves follow)"
      : "move " + k + " of " + n + ": " + game.players[game.movers[k - 1]]
        + " plays " + JSON.stringify(game.moves[k - 1]);
    q("step").textContent = text + (k === n ? " \u2014 " + game.result : "");
  }}
  q("pick").onchange = function(){{ g = +this.value; k = 0; show(); }};
  q("first").onclick = function(){{ k = 0; show(); }};
  q("back").onclick = function(){{ k -= 1; show(); }};
  q("next").onclick = function(){{ k += 1; show(); }};
  q("last").onclick = function(){{ k = games[g].moves.length; show(); }};
  show();
}})();"""
    moves = ", ".join(json.dumps(m) for m in first["moves"])
    box = (
        "border:1px solid #ccc;border-radius:6px;padding:.6em;max-width:40em;font-family:sans-serif;"
        "font-size:16px;color:#222;background:#fff"
    )
    pre = "font-family:monospace;font-size:20px;background:#fafafa;padding:.5em;margin:.4em 0;white-space:pre"
    control = "font-size:16px;padding:.2em .6em"
    return (
        f'<div class="gk-replay" id="{uid}" style="{box}" role="group" aria-label="{_e(title)}">'
        f'<label for="{uid}-pick"><b>{_e(title)}</b></label> '
        f'<select id="{uid}-pick" data-role="pick" style="{control}">{options}</select><br>'
        f'<button data-role="first" style="{control}" aria-label="first position">« first</button> '
        f'<button data-role="back" style="{control}" aria-label="back one move">‹ back</button> '
        f'<button data-role="next" style="{control}" aria-label="next move">next ›</button> '
        f'<button data-role="last" style="{control}" aria-label="last position">last »</button>'
        f'<div data-role="players" style="margin-top:.4em">seat 0: {_e(first["players"][0])} — '
        f"seat 1: {_e(first['players'][1])}</div>"
        f'<pre data-role="board" style="{pre}" aria-label="board">{_e(first["shown"][0])}</pre>'
        f'<div data-role="step" role="status" aria-live="polite">start position; moves: {_e(moves)} — '
        f"{_e(first['result'])}</div>"
        f'<script type="application/json" id="{uid}-data">{_json_for_script(games)}</script>'
        f"<script>{script}</script></div>"
    )


def _result_text(r: dict[str, Any]) -> str:
    if r["forfeit"] is not None:
        loser = r["names"][r["forfeit"]] or r["agents"][r["forfeit"]]
        return f"{loser} forfeits ({r['reason']}: {r['detail']})"
    if r["winner"] is None:
        return "draw" + (f" ({r['detail']})" if r["reason"] else "")
    return f"{r['names'][r['winner']] or r['agents'][r['winner']]} wins"


def leaderboard_html(results: Results, reps: int = 2000, show_files: bool = False) -> str:
    """The whole leaderboard page as one HTML string (see the module docstring); agents by their
    display names, submission files' names only with `show_files`."""
    cfg = results.config
    ratings = results.ratings(reps) if len(results.accepted()) >= 2 and results.records else None
    rows = results.standings(ratings=ratings)
    lim = cfg["limits"]
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>Class tournament: {_e(cfg['game'])}</title><style>{STYLE}</style></head><body><main>",
        f"<h1>Class tournament: {_e(cfg['game'])}</h1>",
        f"<p class='small'>{_e(cfg['format'])}, {cfg['starts']} start(s) per pairing"
        + (f" ({cfg['opening']} random opening moves)" if cfg.get("opening") else "")
        + ", each played with the seats "
        f"swapped; seed {cfg['seed']}; {len(results.records)} games; limits: {lim['move_seconds']} s per move "
        f"+ {lim['bank_seconds']} s bank, {lim['startup_seconds']} s start-up, {lim['memory_mb']:.0f} MB.</p>",
        "<h2>Standings</h2><table><tr><th scope='col'>#</th><th scope='col' class='name'>agent</th>"
        "<th scope='col'>Elo</th><th scope='col'>95% interval</th><th scope='col'>W</th><th scope='col'>D</th>"
        "<th scope='col'>L</th><th scope='col'>score</th><th scope='col'>forfeits</th></tr>",
    ]
    for k, s in enumerate(rows, 1):
        out.append(
            f"<tr><td>{k}</td><td class='name'>{_e(s.name)}"
            + (f" <span class='small'>({_e(s.id)})</span>" if show_files else "")
            + "</td>"
            f"<td>{s.rating:.0f}</td><td>"
            + (f"[{s.low:.0f}, {s.high:.0f}]" if math.isfinite(s.low) else "—")
            + f"{'*' if s.profiled else '†' if s.one_sided and math.isfinite(s.low) else ''}</td>"
            f"<td>{s.wins}</td><td>{s.draws}</td>"
            f"<td>{s.losses}</td><td>{s.score:.2f}</td><td>{s.forfeits}</td></tr>"
        )
    out.append("</table>")
    out.append("<h2>Ratings with 95% intervals</h2>" + ratings_svg(rows))
    if ratings is not None and ratings.too_few:
        how = f"<b>No intervals</b>: {_e(ratings.too_few)}. The order of the board is not settled by these games."
    else:
        how = f"The bar is the {_e(INTERVAL_METHOD)}."
        if any(s.one_sided and math.isfinite(s.low) for s in rows):
            how += f" † {_e(ONE_SIDED_NOTE[:1].upper() + ONE_SIDED_NOTE[1:])}."
    out.append(
        "<p class='small'>Bradley–Terry (Davidson draws) on the Elo scale, mean 0; each start is played "
        f"with both seat orders and the game pair is the unit. {how}</p>"
    )
    ids = [s.id for s in rows]
    pairs = results.pairings()
    out.append(
        "<h2>Pairings</h2><p class='small'>Row agent against column agent: wins–draws–losses and the "
        "row agent's score (no interval: one pairing's games are few; compare agents by the "
        "difference intervals below).</p><table><tr><td></td>"
    )
    out.extend(f"<th scope='col'>{_e(results.names[b])}</th>" for b in ids)
    out.append("</tr>")
    for a in ids:
        out.append(f"<tr><th scope='row' class='name'>{_e(results.names[a])}</th>")
        for b in ids:
            p = pairs.get((a, b))
            if p is None or not p.games:
                out.append("<td></td>")
                continue
            shade = RED if p.score > 0.5 else BLUE if p.score < 0.5 else "#999999"
            alpha = int(30 + 90 * abs(p.score - 0.5) * 2)  # light enough for 4.5:1 text contrast
            out.append(
                f"<td style='background:{shade}{alpha:02x}'>{p.wins}–{p.draws}–{p.losses}<br>"
                f"<span class='small'>{p.score:.2f}</span></td>"
            )
        out.append("</tr>")
    out.append("</table>")
    out.append(_neighbours_html(results, rows, ratings))
    out.append("<h2>Forfeit log</h2>")
    forfeits = results.forfeits()
    if forfeits:
        out.append(
            "<table><tr><th class='name' scope='col'>game</th><th class='name' scope='col'>agent</th>"
            "<th scope='col'>move</th><th scope='col'>time taken</th>"
            "<th class='name' scope='col'>reason</th><th class='name' scope='col'>what happened</th></tr>"
        )
        for f in forfeits:
            who = results.names.get(f["agent"], f["agent"])
            out.append(
                f"<tr><td class='name'>{_e(game_label(f['game'], results.names, show_files))}</td>"
                f"<td class='name'>{_e(who)}</td><td>{f['move']}</td>"
                f"<td>{'' if f.get('seconds') is None else format(f['seconds'], '.2f') + ' s'}</td>"
                f"<td class='name'>{_e(f['reason'])}</td>"
                f"<td class='name'><pre class='small'>{_e(f['detail'][:1200])}</pre></td></tr>"
            )
        out.append("</table>")
    else:
        out.append("<p>No game was forfeited.</p>")
    rejected = results.rejected()
    if rejected:
        out.append("<h2>Rejected submissions</h2><ul>")
        out.extend(
            f"<li><b>{_e(_entrant_label(e, k, show_files))}</b>: "
            f"{_e(_without_file(e.reason, e.id, show_files)[:400])}</li>"
            for k, e in enumerate(rejected, 1)
        )
        out.append("</ul>")
    out.append("<h2>Replay</h2>" + replay_html(results.records, "Pick a game:", show_files))
    out.append("</main></body></html>")
    return "\n".join(out)


def _neighbours_html(results: Results, rows: Sequence[Standing], ratings: Any = None) -> str:
    """For each two neighbours on the board: the interval of their difference, and whether the
    order is settled once the number of comparisons is taken into account (Holm)."""
    head = "<h2>Is the order settled?</h2>"
    if ratings is None or ratings.cov is None:
        why = ratings.too_few if ratings is not None else "no ratings yet"
        return head + f"<p>Not from these games: {_e(why)}.</p>"
    nb = results.neighbours(ratings)
    lines = [
        head + f"<p class='small'>{len(nb)} comparisons: each agent against the one ranked just below "
        "it, by the 95 % interval of the difference of their ratings (not by overlapping bars: two bars "
        f"can overlap while the difference is clear). {_e(HOLM_NOTE[:1].upper() + HOLM_NOTE[1:])}.</p>",
        "<table><tr><th class='name' scope='col'>pair</th><th scope='col'>difference (Elo)</th>"
        "<th scope='col'>95% interval</th><th class='name' scope='col'>order</th></tr>",
    ]
    for row in nb:
        up, down = results.names[row["upper"]], results.names[row["lower"]]
        verdict = "settled (Holm)" if row["settled"] else "not settled"
        lines.append(
            f"<tr><td class='name'>{_e(up)} vs {_e(down)}</td><td>{row['difference']:.0f}</td>"
            f"<td>[{row['low']:.0f}, {row['high']:.0f}]</td><td class='name'>{verdict}</td></tr>"
        )
    lines.append("</table>")
    return "\n".join(lines)


def _entrant_label(entrant: Any, k: int, show_files: bool) -> str:
    """A submission as the page names it: its NAME, else "submission k"; its file's name only with show_files."""
    named = bool(entrant.name) and entrant.name != entrant.id
    label = entrant.name if named else f"submission {k} (no NAME)"
    return f"{label} ({entrant.id})" if show_files else label


def _without_file(text: str, stem: str, show_files: bool) -> str:
    """`text` with the submission's file name (and its module name) replaced, unless show_files."""
    if show_files:
        return text
    return text.replace(f"gamekit_agent_{stem}", "the submission").replace(stem, "the submission")


def _finite_or_none(row: dict[str, Any]) -> dict[str, Any]:
    """A standing as strict JSON allows it: a missing number (no interval yet) is null, not NaN."""
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}


def write_report(results: Results, folder: str | Path, reps: int = 2000, show_files: bool = False) -> Path:
    """leaderboard.html, ratings.json and games/<id>.json in `folder`; returns the page's path.

    The page names agents by their display names; `show_files` adds the submission files' names."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    page = out / "leaderboard.html"
    page.write_text(leaderboard_html(results, reps, show_files), encoding="utf-8")
    ratings = results.ratings(reps) if len(results.accepted()) >= 2 and results.records else None
    rows = results.standings(ratings=ratings)
    summary = {
        "config": results.config,
        "standings": [_finite_or_none(dict(s.__dict__, score=s.score)) for s in rows],  # strict JSON: no NaN
        "intervals": ratings.too_few if ratings is not None and ratings.too_few else INTERVAL_METHOD,
        "forfeits": results.forfeits(),
        "rejected": [{"id": e.id, "reason": e.reason} for e in results.rejected()],
    }
    (out / "ratings.json").write_text(json.dumps(summary, indent=1, sort_keys=True, allow_nan=False), encoding="utf-8")
    results.write_records(out / "games")
    return page
