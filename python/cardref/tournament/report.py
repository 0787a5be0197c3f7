"""Publishing results: the terminal tables and the md, csv, json and html reports.

Every format draws the same results (``stats.results``) through the same
tables (``tables.py``); this module holds the terminal, Markdown, CSV and
JSON renderers, ``htmlpage.py`` the HTML one.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from typing import Any, Optional

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table as RichTable
from rich.text import Text

from . import tables
from .htmlpage import to_html
from .tables import FAILURES_SHOWN, STATS, Column, Table

FORMATS = ("md", "csv", "json", "html")


def render(results: dict[str, Any], fmt: str) -> str:
    """The report in ``fmt`` (one of FORMATS)."""
    return {"md": to_markdown, "csv": to_csv, "json": to_json, "html": to_html}[fmt](results)


# The terminal ------------------------------------------------------------------


def _rich(table: Table, caption: str, fold: bool = False,
          limit: Optional[int] = None) -> RichTable:
    """A rich table; ``fold`` left-aligns every column and folds long cells."""
    out = RichTable(title=Text(caption))
    for column in table.columns:
        label = Text(f"{column.label} [95% CI]" if column.ci else column.label)
        if fold:
            out.add_column(label, overflow="fold")
        else:  # an interval is read as one piece: never wrapped inside
            out.add_column(label, justify="right" if column.numeric else "left",
                           no_wrap=column.ci)
    for row in table.rows[:limit]:  # as Text: a name or message is never markup
        out.add_row(*(Text("-" if cell is None else cell) for cell in row))
    return out


def _columns(table: Table, keep: int, others: list[int]) -> Table:
    """``table`` with its first ``keep`` columns and the columns ``others``."""
    chosen = [*range(keep), *others]
    return replace(table, columns=[table.columns[i] for i in chosen],
                   rows=[[row[i] for i in chosen] for row in table.rows])


def _width(console: Console, table: Table) -> int:
    """The width ``table`` takes with no cell wrapped, however wide that is."""
    unbounded = console.options.update(max_width=1 << 16)
    return Measurement.get(console, unbounded, _rich(table, "")).maximum


def print_fitting(console: Console, table: Table, caption: str, keep: int) -> None:
    """Print ``table`` whole, or, when the terminal is too narrow for it, as
    several tables of the same rows, each repeating the first ``keep``
    columns (those that name the row): a cell is never wrapped or cut."""
    rest = list(range(keep, len(table.columns)))
    part = 0
    while rest:
        take = 1
        while take < len(rest) and _width(console, _columns(table, keep, rest[:take + 1])) \
                <= console.width:
            take += 1
        title = caption if part == 0 else f"{caption} (continued)"
        console.print(_rich(_columns(table, keep, rest[:take]), title))
        rest, part = rest[take:], part + 1


def print_results(results: dict[str, Any], console: Console) -> None:
    """The final tables in the terminal: standings, head-to-head, by seat, failures."""
    standings = tables.standings(results)
    print_fitting(console, standings, tables.title(results), keep=2)
    sandbox = results["tournament"].get("sandbox")
    if sandbox:
        console.print(Text(f"Submitted bots: {sandbox}"))
    if tables.TIE_NOTE in standings.note:
        console.print(Text(tables.TIE_NOTE))
    for warning in results.get("warnings", []):
        console.print(Text("Warning: " + warning, style="bold yellow"))
    for line in tables.sprt_lines(results):
        console.print(Text(line))
    print_fitting(console, tables.head_to_head(results),
                  "Head-to-head: share of meetings the row bot placed better", keep=1)
    print_fitting(console, tables.by_seat(results), "Mean placement by seat", keep=1)
    summary = tables.failure_summary(results)
    if not summary:
        return
    console.print(Text("Failures: " + "; ".join(f"{b}: {counts}" for b, counts in summary)))
    failures = tables.failure_list(results)
    for row in failures.rows:
        row[-1] = (row[-1] or "")[:120]
    if failures.rows:
        console.print(_rich(failures, "Failures (every report format lists them all)",
                            fold=True, limit=FAILURES_SHOWN))
    if len(failures.rows) > FAILURES_SHOWN:
        console.print(Text(f"… and {len(failures.rows) - FAILURES_SHOWN} more failures"))
    print_tracebacks(results, console)


TRACEBACKS_SHOWN = 3  # distinct tracebacks shown in the terminal


def print_tracebacks(results: dict[str, Any], console: Console) -> None:
    """The first few distinct tracebacks of the failure list, as plain text."""
    groups = tables.tracebacks(results)
    for group in groups[:TRACEBACKS_SHOWN]:
        console.print(Text(f"Traceback of {group.bot} ({group.where()}):", style="bold"))
        console.print(Text(group.traceback), soft_wrap=True)
    if len(groups) > TRACEBACKS_SHOWN:
        console.print(Text(f"… and {len(groups) - TRACEBACKS_SHOWN} more tracebacks: "
                           "cardref replay FILE GAME shows each game's"))


# Markdown ------------------------------------------------------------------------


_MD_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "\\|", "\\": "\\\\",
               "*": "\\*", "_": "\\_", "`": "\\`", "[": "\\[", "]": "\\]", "\n": " ",
               "\r": " "}


def md_text(text: str) -> str:
    """Text anyone may have chosen (a bot's name, its error message) as
    Markdown that shows it literally: no table cell ends early at a ``|``, no
    HTML, link or emphasis is made of it."""
    return "".join(_MD_ESCAPES.get(char, char) for char in text)


def _markdown(table: Table) -> list[str]:
    header = "|" + "".join(f" {md_text(c.label)} |" if c.label else " |"
                           for c in table.columns)
    align = "|" + "".join("---:|" if c.numeric else ":---|" for c in table.columns)
    rows = ["| " + " | ".join(_md_cell(column, cell) for column, cell in zip(table.columns, row))
            + " |" for row in table.rows]
    return [header, align, *rows]


def _md_cell(column: Column, cell: Optional[str]) -> str:
    if cell is None:
        return "–"
    return cell if column.numeric else md_text(cell)  # numbers are ours, text may not be


def _md_section(table: Table) -> list[str]:
    return ["", f"## {table.title}", "", table.note, "", *_markdown(table)]


def to_markdown(results: dict[str, Any]) -> str:
    standings = tables.standings(results)
    sandbox = results["tournament"].get("sandbox")
    lines = [f"# Tournament results: {tables.title(results)}", "",
             *(f"> **Warning:** {md_text(w)}\n" for w in results.get("warnings", [])),
             *([f"Submitted bots: {md_text(sandbox)}", ""] if sandbox else []),
             standings.note, "", *_markdown(standings)]
    if tables.sprt_lines(results):
        lines += ["", "## Early stopping (SPRT)", "", *tables.sprt_lines(results)]
    lines += _md_section(tables.head_to_head(results))
    lines += _md_section(tables.by_seat(results))
    lines += ["", "## Failures", ""]
    summary = tables.failure_summary(results)
    if not summary:
        lines.append("No bot failed.")
    lines += [f"- {md_text(b)}: {counts}" for b, counts in summary]
    failures = tables.failure_list(results)
    if failures.rows:
        lines += ["", *_markdown(failures)]
    lines += _md_tracebacks(results)
    return "\n".join(lines) + "\n"


def _md_tracebacks(results: dict[str, Any]) -> list[str]:
    """Each distinct traceback as an indented code block: nothing in it is
    read as Markdown or HTML, and no line of it can end the block."""
    groups = tables.tracebacks(results)
    if not groups:
        return []
    lines = ["", "## Tracebacks", "", md_text(tables.TRACEBACKS_NOTE)]
    for group in groups:
        lines += ["", f"{md_text(group.bot)} ({md_text(group.where())}):", "",
                  *("    " + line for line in group.traceback.splitlines())]
    return lines


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
