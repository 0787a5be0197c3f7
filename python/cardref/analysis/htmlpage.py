"""``cardref analyze --html``: one self-contained page (inline CSS and SVG, no
scripts or external resources) with every figure, drawn and in tables."""

from __future__ import annotations

import html
from typing import Any, Callable, Optional

from .formats import num, pct, signed, span

e = html.escape

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1100px; }
h2 { margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #ccc; padding: 3px 9px; text-align: right; white-space: nowrap; }
th.text, td.text { text-align: left; }
td.wrap, th.wrap { white-space: normal; }
tr.never td { color: #b00020; }
.note { color: #555; }
svg { display: block; margin: 0.5em 0; }
svg text { font-size: 12px; fill: #222; }
svg .axis { stroke: #888; stroke-width: 1; }
svg .grid { stroke: #eee; stroke-width: 1; }
svg .bar { fill: #3367d6; }
svg .bar.never { fill: #d62d20; }
svg .ci { stroke: #3367d6; stroke-width: 3; }
svg .point { fill: #d62d20; }
svg .zero { stroke: #222; stroke-dasharray: 4 3; }
.multiples { display: flex; flex-wrap: wrap; gap: 1em; }
"""




def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        return [low]
    return [low + (high - low) * i / (count - 1) for i in range(count)]


def interval_chart(name: str, rows: list[tuple[str, dict[str, float]]],
                   fmt: Callable[[float], str], zero: Optional[float] = None) -> str:
    """A dot per row with its 95% interval as a bar, on a shared scale."""
    lows = [iv["low"] for _, iv in rows] + ([zero] if zero is not None else [])
    highs = [iv["high"] for _, iv in rows] + ([zero] if zero is not None else [])
    lo, hi = min(lows), max(highs)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.1 or 1.0
    lo, hi = lo - pad, hi + pad
    left, width, row_h = 120, 520, 26
    height = row_h * len(rows) + 40

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * width

    parts = [f'<svg data-chart="{e(name)}" width="{left + width + 40}" height="{height}" '
             'role="img">']
    for t in _ticks(lo, hi):
        parts.append(f'<line class="grid" x1="{x(t):.1f}" y1="10" x2="{x(t):.1f}" '
                     f'y2="{height - 25}"/><text x="{x(t):.1f}" y="{height - 8}" '
                     f'text-anchor="middle">{e(fmt(t))}</text>')
    if zero is not None:
        parts.append(f'<line class="zero" x1="{x(zero):.1f}" y1="10" x2="{x(zero):.1f}" '
                     f'y2="{height - 25}"/>')
    for i, (label, iv) in enumerate(rows):
        y = 22 + i * row_h
        parts.append(f'<g class="mark" data-label="{e(label)}" data-value="{iv["value"]!r}">'
                     f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{e(label)}</text>'
                     f'<line class="ci" x1="{x(iv["low"]):.1f}" y1="{y}" '
                     f'x2="{x(iv["high"]):.1f}" y2="{y}"/>'
                     f'<circle class="point" cx="{x(iv["value"]):.1f}" cy="{y}" r="4">'
                     f'<title>{e(label)}: {e(span(iv, fmt))}</title></circle></g>')
    parts.append("</svg>")
    return "".join(parts)


def histogram(bins: list[list[int]], label: str, width: int = 640, height: int = 200) -> str:
    """Vertical bars of games per bin; the x axis labels the bins' ranges."""
    if not bins:
        return ""
    top = max(b[2] for b in bins) or 1
    left, bottom = 50, 30
    bar_w = (width - left - 10) / len(bins)
    parts = [f'<svg data-chart="{e(label)}" width="{width}" height="{height}" role="img">',
             f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - 10}" '
             f'y2="{height - bottom}"/>',
             f'<text x="{left - 6}" y="14" text-anchor="end">{top:,}</text>',
             f'<text x="{left + 6}" y="14">games by {e(label)}</text>']
    for i, (low, high, games) in enumerate(bins):
        h = (height - bottom - 20) * games / top
        x = left + i * bar_w
        what = f"{low}" if low == high else f"{low}–{high}"
        parts.append(f'<rect class="bar" x="{x + 1:.1f}" y="{height - bottom - h:.1f}" '
                     f'width="{max(bar_w - 2, 1):.1f}" height="{h:.1f}">'
                     f'<title>{e(label)} {e(what)}: {games:,} games</title></rect>')
    step = max(1, len(bins) // 8)
    for i in range(0, len(bins), step):
        x = left + i * bar_w + bar_w / 2
        parts.append(f'<text x="{x:.1f}" y="{height - 10}" text-anchor="middle">'
                     f'{bins[i][0]}</text>')
    parts.append("</svg>")
    return "".join(parts)


def reach_bars(points: list[dict[str, Any]]) -> str:
    """Per rule point, the share of games in which it fired; never-fired ones in red."""
    left, width, row_h = 80, 520, 18
    height = row_h * len(points) + 10
    parts = [f'<svg data-chart="rule points" width="{left + width + 70}" height="{height}" '
             'role="img">']
    for i, p in enumerate(points):
        y = 4 + i * row_h
        share = p["reach"]["value"]
        w = width * share
        never = " never" if p["fired"] == 0 else ""
        parts.append(f'<text x="{left - 6}" y="{y + 12}" text-anchor="end">{e(p["id"])}</text>'
                     f'<rect class="bar{never}" x="{left}" y="{y + 2}" width="{max(w, 2):.1f}" '
                     f'height="{row_h - 5}"><title>{e(p["clause"])}</title></rect>'
                     f'<text x="{left + max(w, 2) + 6:.1f}" y="{y + 12}">{e(pct(share))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def table(key: str, head: list[str], rows: list[list[str]], text: tuple[int, ...] = (0,),
          classes: Optional[list[str]] = None) -> str:
    """A table; the columns in ``text`` are left-aligned, numbers right."""

    def cell(tag: str, i: int, value: str) -> str:
        cls = ' class="text"' if i in text else ""
        if i in text and i == len(head) - 1 and len(head) > 2:
            cls = ' class="text wrap"'  # a long text column, last: it may wrap
        return f"<{tag}{cls}>{e(value)}</{tag}>"

    out = [f'<table id="{key}"><thead><tr>'
           + "".join(cell("th", i, h) for i, h in enumerate(head))
           + "</tr></thead><tbody>"]
    for j, row in enumerate(rows):
        cls = f' class="{classes[j]}"' if classes and classes[j] else ""
        out.append(f"<tr{cls}>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _seats(r: dict[str, Any]) -> str:
    seats = r["seats"]
    return (
        "<h2>Seat advantage</h2>"
        '<p class="note">Win share: games in which the seat placed first (shared first '
        "places count for every seat sharing). With the same bot in every seat, a "
        "fair game gives every seat the same share.</p>"
        + interval_chart("win share", [(f"seat {s['seat']} ({s['bot']})", s["win_share"])
                                       for s in seats], pct)
        + "<h3>Mean score</h3>"
        + interval_chart("mean score", [(f"seat {s['seat']}", s["mean_score"]) for s in seats],
                         num)
        + table("seats", ["seat", "bot", "win share [95%]", "advantage", "mean score [95%]",
                 "mean placement [95%]"],
                [[str(s["seat"]), s["bot"], span(s["win_share"]), f"{100 * s['advantage']:+.1f}%",
                  span(s["mean_score"], num), span(s["mean_placement"], num)] for s in seats],
                text=(0, 1)))


def _lengths(r: dict[str, Any]) -> str:
    def row(name: str, d: dict[str, Any]) -> list[str]:
        return [name, num(d["mean"]), num(d["sd"])] + [
            f"{d[k]:,}" for k in ("min", "p5", "p25", "p50", "p75", "p95", "max")]

    rows = [row("actions", r["length"]), row("rounds", r["rounds"])]
    rows += [row(f"score, seat {i}", d) for i, d in enumerate(r["scores"])]
    multiples = "".join(f"<div><h4>seat {i}</h4>{histogram(d['bins'], 'score', 320, 160)}</div>"
                        for i, d in enumerate(r["scores"]))
    return ("<h2>Game length</h2>" + histogram(r["length"]["bins"], "actions")
            + histogram(r["rounds"]["bins"], "rounds")
            + "<h2>Scores</h2>" + f'<div class="multiples">{multiples}</div>'
            + table("lengths", ["", "mean", "sd", "min", "5%", "25%", "median", "75%", "95%",
                                "max"], rows))


def _rule_points(r: dict[str, Any]) -> str:
    points = r["rule_points"]
    return ("<h2>Rule points</h2>"
            '<p class="note">The share of games in which each numbered clause of the rule '
            "book (§11) fired at least once; red: never in these games.</p>"
            + reach_bars(points)
            + table("rule-points", ["point", "fired per game", "games reached [95%]", "clause"],
                    [[p["id"], f"{p['per_game']:.3g}", span(p["reach"]), p["clause"]]
                     for p in points], text=(0, 3),
                    classes=["never" if p["fired"] == 0 else "" for p in points]))


def _skill(k: Optional[dict[str, Any]]) -> str:
    if k is None or k["eta_squared"] is None:
        return ""
    iv = k["eta_squared_interval"]
    return ("<h2>How much skill matters</h2>"
            f"<p>In {k['games']:,} games where every seat's bot was drawn at random from "
            f"{e(', '.join(k['pool']))}, the bot in the seat explains "
            f"<b>{pct(k['eta_squared'])}</b> of the variance of placements (eta squared "
            f"{e(span(iv, lambda x: f'{x:.3f}'))}): 0 would mean placements owe nothing to "
            "play, 1 that the bot alone decides them.</p>"
            + interval_chart("mean placement by bot",
                             [(b["bot"], b["mean_placement"]) for b in k["bots"]], num)
            + table("skill", ["bot", "seat-games", "mean placement [95%]", "win share [95%]"],
                    [[b["bot"], f"{b['seat_games']:,}", span(b["mean_placement"], num),
                      span(b["win_share"])] for b in k["bots"]]))


def _compare(c: Optional[dict[str, Any]]) -> str:
    if c is None:
        return ""
    d = c["differences"]
    moved = [p for p in d["rule_points"] if p["reach"]["low"] > 0 or p["reach"]["high"] < 0]
    return (f"<h2>{e(c['label'])}, minus the base game</h2>"
            '<p class="note">Differences with 95% intervals; the dashed line is no '
            "difference.</p>"
            + interval_chart("win share difference",
                             [(f"seat {s['seat']} win share", s["win_share"])
                              for s in d["seats"]], pct, zero=0.0)
            + table("differences", ["", "difference [95%]"],
                    [[f"seat {s['seat']} win share", span(s["win_share"], signed(pct))]
                     for s in d["seats"]]
                    + [[f"seat {s['seat']} mean score", span(s["mean_score"], signed(num))]
                       for s in d["seats"]]
                    + [["game length (actions)", span(d["length"], signed(num))],
                       ["rounds", span(d["rounds"], signed(num))]]
                    + [[f"{p['id']} games reached", span(p["reach"], signed(pct))]
                       for p in moved]))


def page(result: dict[str, Any]) -> str:
    """The whole page for an analysis (and its comparison)."""
    r = result
    variant = f", variant {e(str(r['variant']))}" if r["variant"] else ""
    title = f"{r['game']}: {r['games']:,} games"
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>cardref analyze — {e(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{e(r['game'])}, {r['players']} players</h1>"
        f"<p>{r['games']:,} games{variant}, bots {e(', '.join(r['bots']))}; "
        f"{r['actions']:,} actions in {r['seconds']:.1f} s"
        + (f" ({r['games_per_second']:,.0f} games/s)" if r["games_per_second"] else "")
        + ".</p>" + _seats(r) + _lengths(r) + _rule_points(r) + _skill(r["skill"])
        + _compare(r.get("compare")) + "</body></html>\n")
