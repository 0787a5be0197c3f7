"""The HTML report: one self-contained page (inline CSS and SVG, no scripts or
external resources) with the tables of ``tables.py`` and confidence-interval
charts."""

from __future__ import annotations

import html
from typing import Any

from . import tables
from .tables import Column, Table

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 4px 10px; text-align: right; }
th.text, td.text { text-align: left; }
td.ci { white-space: nowrap; }
.warning { background: #fff4d6; border-left: 4px solid #e0a800; padding: 0.5em 1em; }
.chart .ci { stroke: #3367d6; stroke-width: 3; }
.chart .point { fill: #d62d20; }
.chart .axis { stroke: #555; }
.chart text { font-size: 12px; fill: #222; }
pre { background: #f5f5f5; padding: 1em; }
"""

e = html.escape


def _class(column: Column) -> str:
    """Text columns are left-aligned, numbers right (the default)."""
    if not column.numeric:
        return ' class="text"'
    return ' class="ci"' if column.ci else ""


def _cell(tag: str, column: Column, text: Any) -> str:
    shown = "–" if text is None else e(str(text))
    return f"<{tag}{_class(column)}>{shown}</{tag}>"


def _table(table: Table) -> str:
    """A table with a header row of labels; the first column is a header cell
    when it names the row, and each row of a table of bots has ``data-name``."""
    labels = [f"{c.label} [95% CI]" if c.ci else c.label for c in table.columns]
    head = "<tr>" + "".join(f"<th{_class(c)}>{e(label)}</th>"
                            for c, label in zip(table.columns, labels)) + "</tr>"
    names = table.row_names or [""] * len(table.rows)
    rows = []
    for name, row in zip(names, table.rows):
        first = "th" if table.row_labels else "td"
        cells = _cell(first, table.columns[0], row[0]) + "".join(
            _cell("td", c, text) for c, text in zip(table.columns[1:], row[1:]))
        named = f' data-name="{e(name)}"' if name else ""
        rows.append(f"<tr{named}>{cells}</tr>")
    return (f'<table id="{table.key}"><thead>{head}</thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _sprt(results: dict[str, Any]) -> str:
    """The early-stopping test's section, if the tournament has one."""
    lines = tables.sprt_lines(results)
    if not lines:
        return ""
    return ('<h2>Early stopping (SPRT)</h2>\n'
            + "".join(f'<p class="sprt">{e(line)}</p>' for line in lines))


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
        f'aria-label="{e(label)} with 95% confidence intervals">',
        f'<text x="{left}" y="18" class="axis-title">{e(label)} '
        f'(95% CI, {note})</text>',
    ]
    for i, s in enumerate(rows):
        y = top + row_h * i + row_h / 2
        v = s[key]
        parts.append(
            f'<g class="bot" data-name="{e(s["name"])}" data-value="{v["value"]:.6g}" '
            f'data-low="{v["low"]:.6g}" data-high="{v["high"]:.6g}">'
            f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{e(s["name"])}</text>'
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


def _failures(results: dict[str, Any]) -> str:
    summary = "".join(f"<li>{e(b)}: {e(counts)}</li>"
                      for b, counts in tables.failure_summary(results))
    listing = tables.failure_list(results)
    if listing.rows:
        summary = (summary or "<li>No bot failed.</li>") + \
            f"</ul>{_table(listing)}{_tracebacks(results)}<ul>"
    return summary or "<li>No bot failed.</li>"


def _tracebacks(results: dict[str, Any]) -> str:
    groups = tables.tracebacks(results)
    if not groups:
        return ""
    shown = "".join(f'<details class="traceback" data-bot="{e(g.bot)}"><summary>{e(g.bot)} '
                    f"({e(g.where())})</summary><pre>{e(g.traceback)}</pre></details>"
                    for g in groups)
    return (f"<h3>Tracebacks</h3><p>{e(tables.TRACEBACKS_NOTE)}</p>"
            f'<div id="tracebacks">{shown}</div>')


def to_html(results: dict[str, Any]) -> str:
    """One self-contained page: standings, CI charts, head-to-head, failures."""
    title = e(tables.title(results))
    h2h, seats = tables.head_to_head(results), tables.by_seat(results)
    standings = tables.standings(results)
    warnings = "".join(f'<p class="warning">Warning: {e(w)}</p>'
                       for w in results.get("warnings", []))
    ties = f"<p>{e(tables.TIE_NOTE)}</p>" if tables.TIE_NOTE in standings.note else ""
    sandbox = results["tournament"].get("sandbox")
    if sandbox:
        warnings += f'<p id="sandbox">Submitted bots: {e(sandbox)}</p>'

    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tournament results: {title}</title>
<style>{CSS}</style></head><body>
<h1>Tournament results</h1><p id="summary">{title}</p>
{warnings}<h2>Standings</h2>
{_table(standings)}
<p>95% confidence intervals from a bootstrap over deal groups
({results["tournament"]["bootstrap"]} resamples).</p>{ties}
{_sprt(results)}
<h2>Confidence intervals</h2>
{ci_chart(results, "mean_placement", "Mean placement", True)}
{ci_chart(results, "rating", "Rating (Plackett–Luce, Elo scale)", False)}
<h2>{h2h.title}</h2>
<p>{h2h.note}</p>
{_table(h2h)}
<h2>{seats.title}</h2>
<p>{seats.note}</p>
{_table(seats)}
<h2>Failures</h2><ul id="failures">{_failures(results)}</ul>
<h2>Config</h2><pre>{e(results["tournament"]["config"])}</pre>
</body></html>
"""
