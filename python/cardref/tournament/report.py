"""Publishing results: the terminal tables and the md, csv, json and html reports.

Every format draws the same results (``stats.results``) through the same
tables (``tables.py``); this module holds the terminal, Markdown, CSV and
JSON renderers, ``htmlpage.py`` the HTML one.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Optional

from rich.console import Console
from rich.table import Table as RichTable

from . import tables
from .htmlpage import to_html
from .tables import FAILURES_SHOWN, STATS, Table

FORMATS = ("md", "csv", "json", "html")


def render(results: dict[str, Any], fmt: str) -> str:
    """The report in ``fmt`` (one of FORMATS)."""
    return {"md": to_markdown, "csv": to_csv, "json": to_json, "html": to_html}[fmt](results)


# The terminal ------------------------------------------------------------------


def _rich(table: Table, caption: str, fold: bool = False,
          limit: Optional[int] = None) -> RichTable:
    """A rich table; ``fold`` left-aligns every column and folds long cells."""
    out = RichTable(title=caption)
    for column in table.columns:
        label = f"{column.label} [95% CI]" if column.ci else column.label
        if fold:
            out.add_column(label, overflow="fold")
        else:
            out.add_column(label, justify="right" if column.numeric else "left")
    for row in table.rows[:limit]:
        out.add_row(*("-" if cell is None else cell for cell in row))
    return out


def standings_table(results: dict[str, Any], title: str = "") -> RichTable:
    """The standings as a rich table (95% CIs in brackets)."""
    return _rich(tables.standings(results), title or tables.title(results))


def print_results(results: dict[str, Any], console: Console) -> None:
    """The final tables in the terminal: standings, head-to-head, by seat, failures."""
    console.print(standings_table(results))
    console.print(_rich(tables.head_to_head(results),
                        "Head-to-head: share of meetings the row bot placed better"))
    console.print(_rich(tables.by_seat(results), "Mean placement by seat"))
    summary = tables.failure_summary(results)
    if not summary:
        return
    console.print("Failures: " + "; ".join(f"{b}: {counts}" for b, counts in summary))
    failures = tables.failure_list(results)
    for row in failures.rows:
        row[-1] = (row[-1] or "")[:120]
    if failures.rows:
        console.print(_rich(failures, "Failures (every report format lists them all)",
                            fold=True, limit=FAILURES_SHOWN))
    if len(failures.rows) > FAILURES_SHOWN:
        console.print(f"… and {len(failures.rows) - FAILURES_SHOWN} more failures")


# Markdown ------------------------------------------------------------------------


def _md_cell(text: Optional[str]) -> str:
    if text is None:
        return "–"
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown(table: Table) -> list[str]:
    header = "|" + "".join(f" {_md_cell(c.label)} |" if c.label else " |"
                           for c in table.columns)
    align = "|" + "".join("---:|" if c.numeric else ":---|" for c in table.columns)
    rows = ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in table.rows]
    return [header, align, *rows]


def _md_section(table: Table) -> list[str]:
    return ["", f"## {table.title}", "", table.note, "", *_markdown(table)]


def to_markdown(results: dict[str, Any]) -> str:
    standings = tables.standings(results)
    lines = [f"# Tournament results: {tables.title(results)}", "", standings.note, "",
             *_markdown(standings)]
    lines += _md_section(tables.head_to_head(results))
    lines += _md_section(tables.by_seat(results))
    lines += ["", "## Failures", ""]
    summary = tables.failure_summary(results)
    if not summary:
        lines.append("No bot failed.")
    lines += [f"- {b}: {counts}" for b, counts in summary]
    failures = tables.failure_list(results)
    if failures.rows:
        lines += ["", *_markdown(failures)]
    return "\n".join(lines) + "\n"


# CSV and JSON -----------------------------------------------------------------------


def to_json(results: dict[str, Any]) -> str:
    return json.dumps(results, indent=2, sort_keys=False) + "\n"


def to_csv(results: dict[str, Any]) -> str:
    """The standings, one row per bot, with each CI as separate columns (full
    precision, for further analysis)."""
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
