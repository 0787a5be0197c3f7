"""A run's figures, from its totals: what ``cardref analyze`` prints, writes
as JSON and draws (docs/verify.md explains each)."""

from __future__ import annotations

from typing import Any, Optional

from .. import registry
from . import stats
from .run import Totals


def seat_figures(totals: Totals) -> list[dict[str, Any]]:
    """Per seat: its bot, win share, mean score and mean placement, each with
    its 95% interval, and its advantage (win share over the seats' average)."""
    seats = []
    for seat, per_bot in enumerate(totals.seats):
        s = per_bot[0]
        n = s["games"]
        seats.append({
            "seat": seat, "bot": totals.bots[seat], "games": n,
            "win_share": stats.share(s["wins"], n),
            "mean_score": stats.mean(s["score_sum"], s["score_sq"], n),
            "mean_placement": stats.mean(s["placement_sum"], s["placement_sq"], n),
        })
    average = sum(s["win_share"]["value"] for s in seats) / max(len(seats), 1)
    for s in seats:
        s["advantage"] = s["win_share"]["value"] - average
    return seats


def distribution(counts: Any) -> dict[str, Any]:
    """A histogram's summary, its mean with an interval, and its bins."""
    counts = {int(k): v for k, v in counts.items()}
    out: dict[str, Any] = stats.histogram_stats(counts)
    n = sum(counts.values())
    total = sum(k * v for k, v in counts.items())
    squares = sum(k * k * v for k, v in counts.items())
    out["mean_interval"] = stats.mean(total, squares, n)
    out["bins"] = [list(b) for b in stats.bins(counts)]
    return out


def rule_points(game_id: str, totals: Totals) -> list[dict[str, Any]]:
    """Every rule point of the game: times fired per game, and the share of
    games in which it fired at least once (with its interval)."""
    games = max(totals.games, 1)
    points = getattr(registry.module(game_id), "RULE_POINTS", {})
    return [{"id": pid, "clause": clause,
             "fired": totals.points.get(pid, [0, 0])[0],
             "per_game": totals.points.get(pid, [0, 0])[0] / games,
             "games": totals.points.get(pid, [0, 0])[1],
             "reach": stats.share(totals.points.get(pid, [0, 0])[1], totals.games)}
            for pid, clause in points.items()]


def skill_figures(totals: Totals) -> dict[str, Any]:
    """How much skill matters, from games where every seat's bot was drawn
    from the pool: the share of the variance of placements explained by which
    bot sits in the seat (eta squared, 0 = none, 1 = placements decided by the
    bot alone), with a batch-means interval over the run's slices, and each
    bot's mean placement and win share over every seat."""

    def groups(seats: list[list[Any]]) -> list[tuple[int, float, float]]:
        pooled = []
        for b in range(len(totals.bots)):
            pooled.append((sum(per_bot[b]["games"] for per_bot in seats),
                           float(sum(per_bot[b]["placement_sum"] for per_bot in seats)),
                           float(sum(per_bot[b]["placement_sq"] for per_bot in seats))))
        return pooled

    batches = [e for e in (stats.eta_squared(groups(s)) for s in totals.slices) if e is not None]
    bots = []
    for b, name in enumerate(totals.bots):
        n = sum(per_bot[b]["games"] for per_bot in totals.seats)
        bots.append({
            "bot": name, "seat_games": n,
            "mean_placement": stats.mean(sum(p[b]["placement_sum"] for p in totals.seats),
                                         sum(p[b]["placement_sq"] for p in totals.seats), n),
            "win_share": stats.share(sum(p[b]["wins"] for p in totals.seats), n),
        })
    return {"games": totals.games, "pool": list(totals.bots),
            "eta_squared": stats.eta_squared(groups(totals.seats)),
            "eta_squared_interval": stats.batch_interval(batches) if batches else None,
            "bots": bots}


def summarize(game_id: str, variant: dict[str, Any], totals: Totals,
              skill: Optional[Totals] = None) -> dict[str, Any]:
    """Every figure of one configuration's runs."""
    return {
        "game": game_id, "players": totals.players, "variant": variant,
        "bots": totals.bots, "games": totals.games, "actions": totals.actions,
        "seconds": totals.seconds, "threads": totals.threads,
        "games_per_second": totals.games / totals.seconds if totals.seconds else None,
        "seats": seat_figures(totals),
        "length": distribution(totals.lengths),
        "rounds": distribution(totals.rounds),
        "scores": [distribution(c) for c in totals.scores],
        "rule_points": rule_points(game_id, totals),
        "skill": skill_figures(skill) if skill is not None else None,
    }


def differences(base: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """``other`` minus ``base``, with intervals treating the runs as independent
    (they share their seeds, so the true intervals are, if anything, narrower)."""
    return {
        "seats": [{"seat": a["seat"],
                   "win_share": stats.difference(a["win_share"], b["win_share"]),
                   "mean_score": stats.difference(a["mean_score"], b["mean_score"])}
                  for a, b in zip(base["seats"], other["seats"])],
        "length": stats.difference(base["length"]["mean_interval"],
                                   other["length"]["mean_interval"]),
        "rounds": stats.difference(base["rounds"]["mean_interval"],
                                   other["rounds"]["mean_interval"]),
        "rule_points": [{"id": a["id"], "reach": stats.difference(a["reach"], b["reach"])}
                        for a, b in zip(base["rule_points"], other["rule_points"])],
    }
