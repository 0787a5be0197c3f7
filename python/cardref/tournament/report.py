"""Publishing results: the terminal table and the md, csv, json and html reports.

All formats render the same ``results`` dict (``results_from_store``): the
tournament's description, standings in rank order, head-to-head, results by
seat and failures. The HTML report is one self-contained file (inline CSS and
SVG, no scripts or external resources) with a confidence-interval chart.
"""

from __future__ import annotations

import csv
import html
import io
import json
from typing import Any

from rich.console import Console
from rich.table import Table

from . import ratings
from .store import Store

FORMATS = ("md", "csv", "json", "html")
STATS = (
    ("mean_placement", "Mean placement", 2),
    ("win_share", "Win share", 3),
    ("mean_score", "Mean score", 1),
    ("rating", "Rating", 1),
)


def results_from_store(store: Store) -> dict[str, Any]:
    """Compute every results section from a results file."""
    meta = store.meta()
    games = store.games()
    bots = store.bot_names()
    teams = json.loads(meta["teams"])
    out = ratings.compute(games, bots, teams, resamples=int(meta["bootstrap"]),
                          seed=int(meta["seed"]))
    out["tournament"] = {
        "game": meta["game"], "players": int(meta["players"]),
        "params": json.loads(meta["params"]), "engine": meta["engine"],
        "format": meta["format"], "seed": int(meta["seed"]),
        "deal_groups": int(meta["deal_groups"]), "teams": teams,
        "bots": bots, "games_scheduled": len(store.schedule()), "games_played": len(games),
        "bootstrap": int(meta["bootstrap"]), "config": meta["config_text"],
    }
    return out


def _ci(stat: dict[str, float], digits: int) -> str:
    return f"{stat['value']:.{digits}f} [{stat['low']:.{digits}f}, {stat['high']:.{digits}f}]"


def _title(results: dict[str, Any]) -> str:
    t = results["tournament"]
    return (f"{t['game']}, {t['players']} players, {t['format'].replace('_', ' ')}: "
            f"{t['games_played']} of {t['games_scheduled']} games")


def standings_table(results: dict[str, Any], title: str = "") -> Table:
    """The standings as a rich table (95% CIs in brackets)."""
    table = Table(title=title or _title(results))
    for label in ("#", "Bot", "Games"):
        table.add_column(label, justify="right" if label != "Bot" else "left")
    for _, label, _ in STATS:
        table.add_column(f"{label} [95% CI]", justify="right")
    table.add_column("Failures", justify="right")
    for s in results["standings"]:
        table.add_row(str(s["rank"]), s["name"], str(s["games"]),
                      *(_ci(s[key], d) for key, _, d in STATS), str(s["failures"]))
    return table


def print_results(results: dict[str, Any], console: Console) -> None:
    """The final tables in the terminal: standings, head-to-head, failures."""
    console.print(standings_table(results))
    bots = [s["name"] for s in results["standings"]]
    h2h = Table(title="Head-to-head: share of meetings the row bot placed better")
    h2h.add_column("")
    for b in bots:
        h2h.add_column(b, justify="right")
    for a in bots:
        row = results["head_to_head"].get(a, {})
        h2h.add_row(a, *(f"{row[b]['score']:.2f}" if b in row else "-" for b in bots))
    console.print(h2h)
    seats = _seat_count(results)
    by_seat = Table(title="Mean placement by seat")
    by_seat.add_column("Bot")
    for i in range(seats):
        by_seat.add_column(f"Seat {i}", justify="right")
    for b in bots:
        cells = _seat_cells(results, b)
        by_seat.add_row(b, *(cells.get(i, "-") for i in range(seats)))
    console.print(by_seat)
    failed = {b: c for b, c in results["failures"].items() if c}
    if failed:
        console.print("Failures: " + "; ".join(
            f"{b}: " + ", ".join(f"{n} {status}" for status, n in sorted(c.items()))
            for b, c in failed.items()))


def render(results: dict[str, Any], fmt: str) -> str:
    """The report in ``fmt`` (one of FORMATS)."""
    return {"md": to_markdown, "csv": to_csv, "json": to_json, "html": to_html}[fmt](results)


def to_json(results: dict[str, Any]) -> str:
    return json.dumps(results, indent=2, sort_keys=False) + "\n"


def to_csv(results: dict[str, Any]) -> str:
    """The standings, one row per bot, with each CI as separate columns."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    header = ["rank", "name", "games", "seats"]
    for key, _, _ in STATS:
        header += [key, f"{key}_low", f"{key}_high"]
    writer.writerow([*header, "failures"])
    for s in results["standings"]:
        row = [s["rank"], s["name"], s["games"], s["seats"]]
        for key, _, _ in STATS:
            row += [repr(s[key]["value"]), repr(s[key]["low"]), repr(s[key]["high"])]
        writer.writerow([*row, s["failures"]])
    return buf.getvalue()


def to_markdown(results: dict[str, Any]) -> str:
    lines = [f"# Tournament results: {_title(results)}", "",
             "Values with 95% bootstrap confidence intervals over deal groups.", "",
             "| # | Bot | Games | " + " | ".join(label for _, label, _ in STATS)
             + " | Failures |",
             "|---:|:---|---:|" + "---:|" * len(STATS) + "---:|"]
    for s in results["standings"]:
        cells = [str(s["rank"]), s["name"], str(s["games"]),
                 *(_ci(s[key], d) for key, _, d in STATS), str(s["failures"])]
        lines.append("| " + " | ".join(cells) + " |")
    bots = [s["name"] for s in results["standings"]]
    lines += ["", "## Head-to-head", "",
              "Share of meetings the row bot placed better than the column bot.", "",
              "| | " + " | ".join(bots) + " |", "|:---|" + "---:|" * len(bots)]
    for a in bots:
        row = results["head_to_head"].get(a, {})
        lines.append(f"| {a} | " + " | ".join(
            f"{row[b]['score']:.2f}" if b in row else "–" for b in bots) + " |")
    lines += ["", "## By seat", "", "Mean placement of each bot in each seat.", ""]
    seats = _seat_count(results)
    lines += ["| Bot | " + " | ".join(f"Seat {i}" for i in range(seats)) + " |",
              "|:---|" + "---:|" * seats]
    for b in bots:
        cells = _seat_cells(results, b)
        lines.append(f"| {b} | " + " | ".join(cells.get(i, "–") for i in range(seats)) + " |")
    lines += ["", "## Failures", ""]
    failed = {b: c for b, c in results["failures"].items() if c}
    if not failed:
        lines.append("No bot failed.")
    for b, counts in failed.items():
        lines.append(f"- {b}: " + ", ".join(f"{n} {st}" for st, n in sorted(counts.items())))
    return "\n".join(lines) + "\n"


def _seat_count(results: dict[str, Any]) -> int:
    return max((e["seat"] + 1 for v in results["by_seat"].values() for e in v), default=0)


def _seat_cells(results: dict[str, Any], bot: str) -> dict[int, str]:
    return {e["seat"]: f"{e['mean_placement']:.2f}" for e in results["by_seat"][bot]}


def ci_chart(results: dict[str, Any], key: str, label: str, lower_is_better: bool) -> str:
    """An inline SVG: one row per bot, a dot at the value and a bar for the CI."""
    rows = results["standings"]
    width, left, right, row_h, top = 640, 150, 30, 28, 30
    lows = [s[key]["low"] for s in rows] or [0.0]
    highs = [s[key]["high"] for s in rows] or [1.0]
    lo, hi = min(lows), max(highs)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (width - left - right)

    height = top + row_h * len(rows) + 30
    note = "lower is better" if lower_is_better else "higher is better"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-stat="{key}" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{html.escape(label)} with 95% confidence intervals">',
        f'<text x="{left}" y="18" class="axis-title">{html.escape(label)} '
        f'(95% CI, {note})</text>',
    ]
    for i, s in enumerate(rows):
        y = top + row_h * i + row_h / 2
        v = s[key]
        parts.append(
            f'<g class="bot" data-name="{html.escape(s["name"])}" data-value="{v["value"]:.6g}" '
            f'data-low="{v["low"]:.6g}" data-high="{v["high"]:.6g}">'
            f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{html.escape(s["name"])}</text>'
            f'<line x1="{x(v["low"]):.1f}" y1="{y}" x2="{x(v["high"]):.1f}" y2="{y}" '
            f'class="ci"/><circle cx="{x(v["value"]):.1f}" cy="{y}" r="5" class="point"/></g>'
        )
    axis_y = top + row_h * len(rows) + 8
    parts.append(f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" '
                 'class="axis"/>')
    for t in range(5):
        v = lo + (hi - lo) * t / 4
        parts.append(f'<text x="{x(v):.1f}" y="{axis_y + 16}" text-anchor="middle" '
                     f'class="tick">{v:.2f}</text>')
    parts.append("</svg>")
    return "".join(parts)


CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 4px 10px; text-align: right; }
th:nth-child(2), td:nth-child(2) { text-align: left; }
.chart .ci { stroke: #3367d6; stroke-width: 3; }
.chart .point { fill: #d62d20; }
.chart .axis { stroke: #555; }
.chart text { font-size: 12px; fill: #222; }
pre { background: #f5f5f5; padding: 1em; }
"""


def to_html(results: dict[str, Any]) -> str:
    """One self-contained page: standings, CI charts, head-to-head, failures."""
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in
                   ["#", "Bot", "Games", *(f"{label} [95% CI]" for _, label, _ in STATS),
                    "Failures"])
    body = []
    for s in results["standings"]:
        cells = [str(s["rank"]), e(s["name"]), str(s["games"]),
                 *(_ci(s[key], d) for key, _, d in STATS), str(s["failures"])]
        body.append(f'<tr data-name="{e(s["name"])}">'
                    + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    bots = [s["name"] for s in results["standings"]]
    h2h = ["<tr><th></th>" + "".join(f"<th>{e(b)}</th>" for b in bots) + "</tr>"]
    for a in bots:
        row = results["head_to_head"].get(a, {})
        h2h.append(f"<tr><th>{e(a)}</th>" + "".join(
            f"<td>{row[b]['score']:.2f}</td>" if b in row else "<td>–</td>" for b in bots)
            + "</tr>")
    seats = _seat_count(results)
    by_seat = ["<tr><th>Bot</th>" + "".join(f"<th>Seat {i}</th>" for i in range(seats))
               + "</tr>"]
    for b in bots:
        cells = _seat_cells(results, b)
        by_seat.append(f"<tr><th>{e(b)}</th>" + "".join(
            f"<td>{cells.get(i, '–')}</td>" for i in range(seats)) + "</tr>")
    failed = {b: c for b, c in results["failures"].items() if c}
    failures = "".join(
        f"<li>{e(b)}: " + e(", ".join(f"{n} {st}" for st, n in sorted(c.items()))) + "</li>"
        for b, c in failed.items()) or "<li>No bot failed.</li>"
    title = e(_title(results))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Tournament results: {title}</title>
<style>{CSS}</style></head><body>
<h1>Tournament results</h1><p id="summary">{title}</p>
<h2>Standings</h2>
<table id="standings"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>
<p>95% confidence intervals from a bootstrap over deal groups
({results["tournament"]["bootstrap"]} resamples).</p>
<h2>Confidence intervals</h2>
{ci_chart(results, "mean_placement", "Mean placement", True)}
{ci_chart(results, "rating", "Rating (openskill mu)", False)}
<h2>Head-to-head</h2>
<p>Share of meetings the row bot placed better than the column bot.</p>
<table id="head-to-head">{"".join(h2h)}</table>
<h2>By seat</h2>
<p>Mean placement of each bot in each seat.</p>
<table id="by-seat">{"".join(by_seat)}</table>
<h2>Failures</h2><ul id="failures">{failures}</ul>
<h2>Config</h2><pre>{e(results["tournament"]["config"])}</pre>
</body></html>
"""
