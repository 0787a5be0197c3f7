"""Tournaments that grow: which config changes extend a results file.

Raising ``deal_groups`` adds deal groups, and adding bots adds lineups
(round robin and gauntlet alike); neither changes a game already played,
whose key, seed and seating stay what they were (``schedule.game_key``), so
the stored games are kept and only the new ones are played. Every other
change decides results already stored and is refused, naming what changed:
lowering ``deal_groups`` (games played would fall out of the tournament),
removing or changing a bot, listing the bots already entered in another
order, and any other key of ``Config.meaning()``.
"""

from __future__ import annotations

from typing import Any

from .config import changes


def refusals(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two ``Config.meaning()`` dicts and cannot be
    played on from the old results, one line each (empty: ``new`` extends
    ``old``)."""
    out = []
    if new.get("deal_groups", 0) < old.get("deal_groups", 0):
        out.append(f"deal_groups: {old['deal_groups']} -> {new['deal_groups']}: lowering "
                   "deal_groups would drop deal groups already played")
    base = dict(old, deal_groups=new.get("deal_groups"))
    old_names = [b["name"] for b in old.get("bots", [])]
    before = {b["name"]: b for b in old.get("bots", [])}
    after = {b["name"]: b for b in new.get("bots", [])}
    if all(name in after for name in old_names):
        order = [b["name"] for b in new.get("bots", [])]
        if [name for name in order if name in before] != old_names:
            out.append("the bots already entered are listed in another order")
        base["bots"] = [before.get(name, after[name]) for name in order]
    return out + changes(base, new)


def extension(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """How ``new`` extends ``old``: the deal groups and bots added."""
    out = []
    if new.get("deal_groups") != old.get("deal_groups"):
        out.append(f"deal_groups {old.get('deal_groups')} -> {new.get('deal_groups')}")
    names = {b["name"] for b in old.get("bots", [])}
    out += [f"bot {b['name']!r} added" for b in new.get("bots", []) if b["name"] not in names]
    return out
