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
(the teacher's `report --show-files`). The pages' words are in the language in force
(`gamekit.i18n`), and the page says which (`<html lang>`); what agents and the referee wrote
(names, forfeit details, reasons for a rejection) is shown as it is.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..i18n import _, get_language, ngettext, pgettext
from ..sandbox.outcomes import reason_text
from ..stats import too_few_text
from .referee import detail_text
from .results import (
    INTERVAL_METHOD,
    Results,
    Standing,
    _column,
    _order_word,
    holm_note,
    interval_method,
    one_sided_note,
)

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


def _text(value: str) -> str:
    """`value` as the text of an element (quotes left as they are: they need no escaping there)."""
    return html.escape(value, quote=False)


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
    said = {"first": names.get(first, first), "second": names.get(second, second), "start": int(start) + 1}
    if order == "1":
        label = _("{first} vs {second}, start {start}, seats swapped").format(**said)
    else:
        label = _("{first} vs {second}, start {start}").format(**said)
    return label + (f" [{game_id}]" if show_files else "")


def ratings_alt(rows: Sequence[Standing]) -> str:
    """The rating chart in words: each agent's rating and interval, best first."""
    rated = [s for s in rows if math.isfinite(s.rating)]
    if rated and not all(math.isfinite(v) for s in rated for v in (s.low, s.high)):
        said = "; ".join(f"{s.name} {s.rating:.0f}" for s in rated)
        # TRANSLATORS: the text alternative of the rating chart; {ratings} lists "name rating; name rating; ..."
        text = _("Dot chart: ratings of {n} agents, best first, no intervals (too few games): {ratings}")
        return text.format(n=len(rated), ratings=said)
    said = "; ".join(f"{s.name} {s.rating:.0f} [{s.low:.0f}, {s.high:.0f}]" for s in rated)
    # TRANSLATORS: the text alternative of the rating chart; {ratings} lists "name rating [low, high]; ..."
    text = _("Dot chart: ratings of {n} agents with 95% intervals, best first: {ratings}")
    return text.format(n=len(rated), ratings=said or pgettext("ratings on the chart", "none yet"))


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
            unrated = _("{name} (no rating yet)").format(name=s.name[:24])
            parts.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{_e(unrated)}</text>')
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


def replay_html(records: Sequence[dict[str, Any]], title: str | None = None, show_files: bool = False) -> str:
    """A self-contained replay of `records` (pick a game, step through it) as an HTML fragment.

    Styles are inline, so the fragment looks the same in a notebook, its exported page and the
    leaderboard page; its text is at least 16 px, its controls are named, and each step is
    announced to a screen reader (a polite live region). Games are listed by readable labels
    (`game_label`; raw ids too with `show_files`). `title` names it (default: "Replay" in the
    language in force); its words are in the language in force, carried to the script as JSON.
    """
    title = pgettext("the replay of the games", "Replay") if title is None else title
    names = {a: (n or a) for r in records for a, n in zip(r["agents"], r["names"])}
    games = [
        {
            "id": game_label(r["id"], names, show_files),
            "players": [r["names"][s] or r["agents"][s] for s in (0, 1)],
            "moves": r["moves"],
            "movers": r.get("movers", [k % 2 for k in range(len(r["moves"]))]),
            "shown": r["shown"],
            "result": _result_text(r),
            # TRANSLATORS: English says "moves follow" for every count; German tells one move from several
            "start": ngettext(
                "start position ({n} moves follow)", "start position ({n} moves follow)", len(r["moves"])
            ).format(n=len(r["moves"])),
        }
        for r in records
    ]
    words = {
        # TRANSLATORS: the replay's line of players; keep {first} and {second}
        "players": _("seat 0: {first} — seat 1: {second}"),
        # TRANSLATORS: a step of the replay: {k} counts the moves, {player} names an agent, {move} is the move as JSON
        "move": _("move {k} of {n}: {player} plays {move}"),
    }
    uid = "gk" + hashlib.sha256("|".join(r["id"] for r in records).encode()).hexdigest()[:10]
    first = games[0] if games else {"shown": [""], "moves": [], "result": "", "id": "", "players": ["", ""]}
    options = "".join(f'<option value="{k}">{_e(g["id"])}</option>' for k, g in enumerate(games))
    script = f"""
(function(){{
  var games = JSON.parse(document.getElementById("{uid}-data").textContent);
  var words = JSON.parse(document.getElementById("{uid}-words").textContent);
  var root = document.getElementById("{uid}"), g = 0, k = 0;
  function q(name){{ return root.querySelector("[data-role=" + name + "]"); }}
  function fill(text, values){{
    return text.replace(/\\{{(\\w+)\\}}/g, function(all, key){{ return String(values[key]); }});
  }}
  function show(){{
    var game = games[g], n = game.moves.length;
    k = Math.max(0, Math.min(k, n));
    q("players").textContent = fill(words.players, {{first: game.players[0], second: game.players[1]}});
    q("board").textContent = game.shown[k];
    var text = k === 0 ? game.start
      : fill(words.move, {{k: k, n: n, player: game.players[game.movers[k - 1]],
                          move: JSON.stringify(game.moves[k - 1])}});
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
    buttons = [  # (role, its name for a screen reader, its text)
        ("first", _("first position"), _("« first")),
        ("back", _("back one move"), _("‹ back")),
        ("next", _("next move"), _("next ›")),
        ("last", _("last position"), _("last »")),
    ]
    controls = " ".join(
        f'<button data-role="{role}" style="{control}" aria-label="{_e(name)}">{_e(text)}</button>'
        for role, name, text in buttons
    )
    players = words["players"].format(first=first["players"][0], second=first["players"][1])
    # TRANSLATORS: the replay before its script runs: {moves} lists the game's moves, {result} says how it ended
    step = _("start position; moves: {moves} — {result}").format(moves=moves, result=first["result"])
    board = pgettext("the game board of the replay", "board")
    return (
        f'<div class="gk-replay" id="{uid}" style="{box}" role="group" aria-label="{_e(title)}">'
        f'<label for="{uid}-pick"><b>{_e(title)}</b></label> '
        f'<select id="{uid}-pick" data-role="pick" style="{control}">{options}</select><br>'
        f"{controls}"
        f'<div data-role="players" style="margin-top:.4em">{_e(players)}</div>'
        f'<pre data-role="board" style="{pre}" aria-label="{_e(board)}">{_e(first["shown"][0])}</pre>'
        f'<div data-role="step" role="status" aria-live="polite">{_e(step)}</div>'
        f'<script type="application/json" id="{uid}-data">{_json_for_script(games)}</script>'
        f'<script type="application/json" id="{uid}-words">{_json_for_script(words)}</script>'
        f"<script>{script}</script></div>"
    )


def _result_text(r: dict[str, Any]) -> str:
    """How a game ended, in the language in force (the forfeit's reason and details as the referee wrote them)."""
    if r["forfeit"] is not None:
        loser = r["names"][r["forfeit"]] or r["agents"][r["forfeit"]]
        # TRANSLATORS: {reason} (time, memory, illegal move, ...) and {detail} are the referee's words, in English
        return _("{loser} forfeits ({reason}: {detail})").format(
            loser=loser, reason=reason_text(r["reason"]), detail=detail_text(r["detail"])
        )
    if r["winner"] is None:
        if r["reason"]:
            return _("draw ({detail})").format(detail=detail_text(r["detail"]))
        return pgettext("how a game ended", "draw")
    return _("{winner} wins").format(winner=r["names"][r["winner"]] or r["agents"][r["winner"]])


def leaderboard_html(results: Results, reps: int = 2000, show_files: bool = False) -> str:
    """The whole leaderboard page as one HTML string (see the module docstring); agents by their
    display names, submission files' names only with `show_files`."""
    cfg = results.config
    ratings = results.ratings(reps) if len(results.accepted()) >= 2 and results.records else None
    rows = results.standings(ratings=ratings)
    lim = cfg["limits"]
    title = _("Class tournament: {game}").format(game=cfg["game"])
    setup = {
        "format": _format_name(cfg["format"]),
        "starts": cfg["starts"],
        "opening": cfg.get("opening"),
        "seed": cfg["seed"],
        "games": len(results.records),
        "move": lim["move_seconds"],
        "bank": lim["bank_seconds"],
        "startup": lim["startup_seconds"],
        "memory": f"{lim['memory_mb']:.0f}",
    }
    if cfg.get("opening"):
        # TRANSLATORS: how the tournament was played. English says "start(s)" for every count
        said = ngettext(
            "{format}, {starts} start(s) per pairing ({opening} random opening moves), each played with the seats "
            "swapped; seed {seed}; {games} games; limits: {move} s per move + {bank} s bank, {startup} s start-up, "
            "{memory} MB.",
            "{format}, {starts} start(s) per pairing ({opening} random opening moves), each played with the seats "
            "swapped; seed {seed}; {games} games; limits: {move} s per move + {bank} s bank, {startup} s start-up, "
            "{memory} MB.",
            cfg["starts"],
        )
    else:
        # TRANSLATORS: how the tournament was played. English says "start(s)" for every count
        said = ngettext(
            "{format}, {starts} start(s) per pairing, each played with the seats swapped; seed {seed}; {games} "
            "games; limits: {move} s per move + {bank} s bank, {startup} s start-up, {memory} MB.",
            "{format}, {starts} start(s) per pairing, each played with the seats swapped; seed {seed}; {games} "
            "games; limits: {move} s per move + {bank} s bank, {startup} s start-up, {memory} MB.",
            cfg["starts"],
        )
    standings, agent = _("Standings"), pgettext("column heading", "agent")
    score, forfeited = pgettext("column heading", "score"), pgettext("column heading", "forfeits")
    numbers = ["Elo", _("95% interval"), _column("W"), _column("D"), _column("L"), score, forfeited]
    head = f"<th scope='col'>#</th><th scope='col' class='name'>{_e(agent)}</th>" + "".join(
        f"<th scope='col'>{_e(word)}</th>" for word in numbers
    )
    out = [
        f"<!DOCTYPE html><html lang='{get_language()}'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body><main>",
        f"<h1>{_e(title)}</h1>",
        f"<p class='small'>{_e(said.format(**setup))}</p>",
        f"<h2>{_e(standings)}</h2><table><tr>{head}</tr>",
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
    out.append(_h2(_("Ratings with 95% intervals")) + ratings_svg(rows))
    if ratings is not None and ratings.too_few:
        # TRANSLATORS: keep the HTML tags <b> and </b>; {reason} says why the games are too few (in English)
        how = _("<b>No intervals</b>: {reason}. The order of the board is not settled by these games.").format(
            reason=_e(too_few_text(ratings.too_few))
        )
    else:
        how = _e(_("The bar is the {method}.").format(method=interval_method()))
        if any(s.one_sided and math.isfinite(s.low) for s in rows):
            how += f" † {_e(_sentence(one_sided_note()))}."
    # TRANSLATORS: the method note under the rating chart; {how} says what the bars are (or why there are none)
    method = _(
        "Bradley–Terry (Davidson draws) on the Elo scale, mean 0; each start is played with both seat orders and "
        "the game pair is the unit. {how}"
    )
    out.append(f"<p class='small'>{method.format(how=how)}</p>")
    ids = [s.id for s in rows]
    pairs = results.pairings()
    explained = _(
        "Row agent against column agent: wins–draws–losses and the row agent's score (no interval: one pairing's "
        "games are few; compare agents by the difference intervals below)."
    )
    out.append(_h2(_("Pairings")) + f"<p class='small'>{_text(explained)}</p><table><tr><td></td>")
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
    out.append(_h2(_("Forfeit log")))
    forfeits = results.forfeits()
    if forfeits:
        game, move = pgettext("column heading: the game", "game"), pgettext("column heading: the move", "move")
        taken, reason = pgettext("column heading", "time taken"), pgettext("column heading", "reason")
        happened = pgettext("column heading", "what happened")
        out.append(
            f"<table><tr><th class='name' scope='col'>{_e(game)}</th><th class='name' scope='col'>{_e(agent)}</th>"
            f"<th scope='col'>{_e(move)}</th><th scope='col'>{_e(taken)}</th>"
            f"<th class='name' scope='col'>{_e(reason)}</th><th class='name' scope='col'>{_e(happened)}</th></tr>"
        )
        for f in forfeits:
            who = results.names.get(f["agent"], f["agent"])
            out.append(
                f"<tr><td class='name'>{_e(game_label(f['game'], results.names, show_files))}</td>"
                f"<td class='name'>{_e(who)}</td><td>{f['move']}</td>"
                f"<td>{'' if f.get('seconds') is None else format(f['seconds'], '.2f') + ' s'}</td>"
                f"<td class='name'>{_e(reason_text(f['reason']))}</td>"
                f"<td class='name'><pre class='small'>{_e(detail_text(f['detail'])[:1200])}</pre></td></tr>"
            )
        out.append("</table>")
    else:
        out.append("<p>" + _e(_("No game was forfeited.")) + "</p>")
    rejected = results.rejected()
    if rejected:
        out.append(_h2(_("Rejected submissions")) + "<ul>")
        out.extend(
            f"<li><b>{_e(_entrant_label(e, k, show_files))}</b>: "
            f"{_e(_without_file(e.reason_text, e.id, show_files)[:400])}</li>"
            for k, e in enumerate(rejected, 1)
        )
        out.append("</ul>")
    out.append(
        _h2(pgettext("the replay of the games", "Replay")) + replay_html(results.records, _("Pick a game:"), show_files)
    )
    out.append("</main></body></html>")
    return "\n".join(out)


def _neighbours_html(results: Results, rows: Sequence[Standing], ratings: Any = None) -> str:
    """For each two neighbours on the board: the interval of their difference, and whether the
    order is settled once the number of comparisons is taken into account (Holm)."""
    head = _h2(_("Is the order settled?"))
    if ratings is None or ratings.cov is None:
        why = too_few_text(ratings.too_few) if ratings is not None else _("no ratings yet")
        return head + "<p>" + _e(_("Not from these games: {why}.").format(why=why)) + "</p>"
    nb = results.neighbours(ratings)
    # TRANSLATORS: English says "comparisons" for every count; {note} is the sentence on Holm's correction
    said = ngettext(
        "{n} comparisons: each agent against the one ranked just below it, by the 95 % interval of the "
        "difference of their ratings (not by overlapping bars: two bars can overlap while the difference is "
        "clear). {note}.",
        "{n} comparisons: each agent against the one ranked just below it, by the 95 % interval of the "
        "difference of their ratings (not by overlapping bars: two bars can overlap while the difference is "
        "clear). {note}.",
        len(nb),
    ).format(n=len(nb), note=_sentence(holm_note()))
    pair, difference = pgettext("column heading", "pair"), pgettext("column heading", "difference (Elo)")
    interval = _("95% interval")
    order = pgettext("column heading: the order of two neighbours", "order")
    columns = (
        f"<th class='name' scope='col'>{_e(pair)}</th><th scope='col'>{_e(difference)}</th>"
        f"<th scope='col'>{_e(interval)}</th><th class='name' scope='col'>{_e(order)}</th>"
    )
    lines = [head + f"<p class='small'>{_e(said)}</p>", f"<table><tr>{columns}</tr>"]
    for row in nb:
        up, down = results.names[row["upper"]], results.names[row["lower"]]
        verdict = _("settled (Holm)") if row["settled"] else _order_word(False)
        both = _("{first} vs {second}").format(first=up, second=down)
        lines.append(
            f"<tr><td class='name'>{_e(both)}</td><td>{row['difference']:.0f}</td>"
            f"<td>[{row['low']:.0f}, {row['high']:.0f}]</td><td class='name'>{_e(verdict)}</td></tr>"
        )
    lines.append("</table>")
    return "\n".join(lines)


def _entrant_label(entrant: Any, k: int, show_files: bool) -> str:
    """A submission as the page names it: its NAME, else "submission k"; its file's name only with show_files."""
    named = bool(entrant.name) and entrant.name != entrant.id
    label = entrant.name if named else _("submission {k} (no NAME)").format(k=k)
    return f"{label} ({entrant.id})" if show_files else label


def _h2(text: str) -> str:
    """A heading of the page: `text` escaped."""
    return f"<h2>{_e(text)}</h2>"


def _sentence(text: str) -> str:
    """`text` with a capital first letter (a note that starts a sentence on the page)."""
    return text[:1].upper() + text[1:]


def _format_name(name: str) -> str:
    """A tournament format (`gamekit.tournament.schedule.FORMATS`) as the page names it, in the language in force."""
    if name == "round-robin":
        return pgettext("tournament format", "round-robin")
    if name == "gauntlet":
        return pgettext("tournament format", "gauntlet")
    return name


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
