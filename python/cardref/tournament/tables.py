"""The tables of a results report, laid out once for every renderer.

``report_tables`` turns the ``stats.results`` dict into ``Table`` values:
standings, head-to-head, by seat and the failure list. Cells are text
(numbers already formatted); ``None`` marks a cell with no value, which each
renderer draws its own way. Renderers (``report.py`` for the terminal,
Markdown, CSV and JSON, ``htmlpage.py`` for HTML) only draw these tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

#: The standings' statistics: key, label, decimals.
STATS = (
    ("mean_placement", "Mean placement", 2),
    ("win_share", "Win share", 3),
    ("mean_score", "Mean score", 1),
    ("rating", "Rating", 1),
)

FAILURES_SHOWN = 20  # rows of the failure list in the terminal


@dataclass(frozen=True)
class Column:
    label: str
    numeric: bool = True  # right-aligned
    ci: bool = False  # a value with its 95% interval in brackets


@dataclass(frozen=True)
class Table:
    """One table: ``key`` is its id (``standings``, ``head-to-head``, ``by-seat``,
    ``failure-list``), ``title`` its heading and ``note`` the sentence under it.
    ``row_labels`` means the first column names the row (a header cell)."""

    key: str
    title: str
    note: str
    columns: list[Column]
    rows: list[list[Optional[str]]]
    row_labels: bool = False
    row_names: list[str] = field(default_factory=list)  # the bot of each row, if any


def ci(stat: dict[str, float], digits: int) -> str:
    """A value with its interval: ``1.50 [1.25, 1.75]``."""
    return f"{stat['value']:.{digits}f} [{stat['low']:.{digits}f}, {stat['high']:.{digits}f}]"


def title(results: dict[str, Any]) -> str:
    """One line naming the tournament and how much of it was played."""
    t = results["tournament"]
    return (f"{t['game']}, {t['players']} players, {t['format'].replace('_', ' ')}: "
            f"{t['games_played']} of {t['games_scheduled']} games")


def ranked_bots(results: dict[str, Any]) -> list[str]:
    return [s["name"] for s in results["standings"]]


TIE_NOTE = ("A rank followed by = (such as 2=) is shared: that bot's mean placement is not "
            "separated from its neighbour's with 95% confidence (bootstrap of the difference).")


def rank(entry: dict[str, Any]) -> str:
    """``3``, or ``2=`` for a bot not separated from a neighbour (stats.py)."""
    return f"{entry['rank_group']}=" if entry.get("tied") else str(entry["rank"])


def standings(results: dict[str, Any]) -> Table:
    columns = [Column("#"), Column("Bot", numeric=False), Column("Games"),
               *(Column(label, ci=True) for _, label, _ in STATS), Column("Failures")]
    rows: list[list[Optional[str]]] = [
        [rank(s), s["name"], str(s["games"]),
         *(ci(s[key], d) for key, _, d in STATS), str(s["failures"])]
        for s in results["standings"]]
    note = "Values with 95% bootstrap confidence intervals over deal groups."
    if any(s.get("tied") for s in results["standings"]):
        note += " " + TIE_NOTE
    return Table("standings", "Standings", note, columns, rows,
                 row_names=ranked_bots(results))


def head_to_head(results: dict[str, Any]) -> Table:
    bots = ranked_bots(results)
    rows: list[list[Optional[str]]] = []
    for a in bots:
        row = results["head_to_head"].get(a, {})
        rows.append([a, *(f"{row[b]['score']:.2f}" if b in row else None for b in bots)])
    return Table("head-to-head", "Head-to-head",
                 "Share of meetings the row bot placed better than the column bot.",
                 [Column("", numeric=False), *(Column(b) for b in bots)], rows,
                 row_labels=True, row_names=bots)


def seat_count(results: dict[str, Any]) -> int:
    return max((e["seat"] + 1 for v in results["by_seat"].values() for e in v), default=0)


def by_seat(results: dict[str, Any]) -> Table:
    bots = ranked_bots(results)
    seats = seat_count(results)
    rows: list[list[Optional[str]]] = []
    for b in bots:
        cells = {e["seat"]: f"{e['mean_placement']:.2f}" for e in results["by_seat"][b]}
        rows.append([b, *(cells.get(i) for i in range(seats))])
    return Table("by-seat", "By seat", "Mean placement of each bot in each seat.",
                 [Column("Bot", numeric=False), *(Column(f"Seat {i}") for i in range(seats))],
                 rows, row_labels=True, row_names=bots)


FAILURE_FIELDS = ("game", "seat", "bot", "status", "message")


def failure_list(results: dict[str, Any]) -> Table:
    rows: list[list[Optional[str]]] = [[str(f[k]) for k in FAILURE_FIELDS]
                                       for f in results.get("failure_list", [])]
    return Table("failure-list", "Failures", "",
                 [Column(k.capitalize(), numeric=k == "seat") for k in FAILURE_FIELDS], rows)


@dataclass(frozen=True)
class TracebackGroup:
    """One traceback of one bot and every failed seat (``game seat N``) it ended."""

    bot: str
    traceback: str
    seats: list[str]

    def where(self, shown: int = 3) -> str:
        """``g0-l1-s2 seat 1, g3-l1-s0 seat 2 and 4 more``."""
        listed = ", ".join(self.seats[:shown])
        more = len(self.seats) - shown
        return f"{listed} and {more} more" if more > 0 else listed


TRACEBACKS_NOTE = ("A traceback shows only the bot's own files, with paths relative to its "
                   "submission; cardref report --no-tracebacks leaves them out.")


def tracebacks(results: dict[str, Any]) -> list[TracebackGroup]:
    """The failure list's distinct tracebacks per bot, in order of first failure
    (a bot that raises the same way in many games is shown once)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for f in results.get("failure_list", []):
        if f.get("traceback"):
            groups.setdefault((f["bot"], f["traceback"]), []).append(
                f"{f['game']} seat {f['seat']}")
    return [TracebackGroup(bot, trace, seats) for (bot, trace), seats in groups.items()]


def failure_summary(results: dict[str, Any]) -> list[tuple[str, str]]:
    """(bot, "2 error, 1 timeout") for every bot that failed."""
    return [(b, ", ".join(f"{n} {status}" for status, n in sorted(c.items())))
            for b, c in results["failures"].items() if c]


def sprt_lines(results: dict[str, Any]) -> list[str]:
    """The early-stopping test of a gauntlet, in words (none without one)."""
    summary = results.get("sprt")
    if summary is None:
        return []
    from .sprt import describe

    lines = [describe(summary) + "."]
    if summary["decided_at"] is not None:
        lines.append(f"The results count deal groups 0 to {summary['decided_at']}, where the "
                     "test decided; games of later groups played meanwhile are kept in the "
                     "file but not counted.")
    return lines
