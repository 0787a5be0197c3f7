"""``cardref analyze``'s tables in the terminal (rich)."""

from __future__ import annotations

from typing import Any, Optional

from rich.console import Console
from rich.table import Table

from .formats import num, pct, signed, span


def render(result: dict[str, Any], console: Console,
           compare: Optional[dict[str, Any]] = None) -> None:
    """Every table of an analysis, and of its comparison if there is one."""
    _heading(result, console)
    _seats(result, console)
    _lengths(result, console)
    _rule_points(result, console)
    if result["skill"] is not None:
        _skill(result["skill"], console)
    if compare is not None:
        console.print()
        _heading(compare["result"], console)
        _differences(compare, console)


def _heading(r: dict[str, Any], console: Console) -> None:
    variant = f", variant {r['variant']}" if r["variant"] else ""
    speed = f" ({r['games_per_second']:,.0f} games/s on {r['threads']} threads)" \
        if r["games_per_second"] else ""
    console.print(f"[bold]{r['game']}[/], {r['players']} players{variant}, bots "
                  f"{','.join(r['bots'])}: {r['games']:,} games, {r['actions']:,} actions in "
                  f"{r['seconds']:.1f} s{speed}", highlight=False)


def _seats(r: dict[str, Any], console: Console) -> None:
    t = Table(title="Seats (95% intervals)")
    for label in ("seat", "bot", "win share", "advantage", "mean score", "mean placement"):
        t.add_column(label, justify="left" if label == "bot" else "right")
    for s in r["seats"]:
        t.add_row(str(s["seat"]), s["bot"], span(s["win_share"]),
                  signed(pct)(s["advantage"]), span(s["mean_score"], num),
                  span(s["mean_placement"], num))
    console.print(t)


def _lengths(r: dict[str, Any], console: Console) -> None:
    t = Table(title="Game length and scores")
    for label in ("", "mean", "sd", "min", "5%", "25%", "median", "75%", "95%", "max"):
        t.add_column(label, justify="left" if not label else "right")

    def row(name: str, d: dict[str, Any]) -> None:
        t.add_row(name, num(d["mean"]), num(d["sd"]),
                  *(f"{d[k]:,}" for k in ("min", "p5", "p25", "p50", "p75", "p95", "max")))

    row("actions", r["length"])
    row("rounds", r["rounds"])
    for seat, d in enumerate(r["scores"]):
        row(f"score, seat {seat}", d)
    console.print(t)


def _rule_points(r: dict[str, Any], console: Console) -> None:
    t = Table(title="Rule points: how often each fired")
    for label in ("point", "per game", "games reached", "clause"):
        t.add_column(label, justify="left" if label in ("point", "clause") else "right")
    for p in r["rule_points"]:
        style = "red" if p["fired"] == 0 else "yellow" if p["reach"]["value"] < 0.01 else None
        t.add_row(p["id"], f"{p['per_game']:.3g}", span(p["reach"]), p["clause"], style=style)
    console.print(t)
    never = [p["id"] for p in r["rule_points"] if p["fired"] == 0]
    if never:
        console.print(f"Never fired in these games: {', '.join(never)}", style="red",
                      highlight=False)


def _skill(k: dict[str, Any], console: Console) -> None:
    if k["eta_squared"] is None:
        console.print("Skill: placements did not vary", highlight=False)
        return
    iv = k["eta_squared_interval"]
    shown = span(iv, lambda x: f"{x:.3f}") if iv else f"{k['eta_squared']:.3f}"
    console.print(f"Skill: the bot in the seat explains {pct(k['eta_squared'])} of the "
                  f"variance of placements (eta squared {shown}; {k['games']:,} games, each "
                  f"seat's bot drawn from {', '.join(k['pool'])})", highlight=False)
    t = Table()
    for label in ("bot", "seat-games", "mean placement", "win share"):
        t.add_column(label, justify="left" if label == "bot" else "right")
    for b in k["bots"]:
        t.add_row(b["bot"], f"{b['seat_games']:,}", span(b["mean_placement"], num),
                  span(b["win_share"]))
    console.print(t)


def _differences(c: dict[str, Any], console: Console) -> None:
    d = c["differences"]
    t = Table(title=f"{c['label']} minus the base game (95% intervals)")
    for label in ("seat", "win share", "mean score"):
        t.add_column(label, justify="right")
    for s in d["seats"]:
        t.add_row(str(s["seat"]), span(s["win_share"], signed(pct)),
                  span(s["mean_score"], signed(num)))
    console.print(t)
    console.print(f"Game length: {span(d['length'], signed(num))} actions; rounds: "
                  f"{span(d['rounds'], signed(num))}", highlight=False)
    moved = [p for p in d["rule_points"] if p["reach"]["low"] > 0 or p["reach"]["high"] < 0]
    if moved:
        t = Table(title="Rule points reached in a different share of games")
        t.add_column("point")
        t.add_column("difference", justify="right")
        for p in moved:
            t.add_row(p["id"], span(p["reach"], signed(pct)))
        console.print(t)
