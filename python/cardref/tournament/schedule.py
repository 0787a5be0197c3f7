"""The schedule: which bots meet, in which seats, on which deals.

The unit of play is the *deal group*: one seeded deal replayed once per
seating, so every bot of a table meets the same cards from every seat.

- A *lineup* is the multiset of bots at one table. Round robin: every
  combination of ``players`` bots when the field is large enough; a gauntlet:
  the candidate with every combination of the others. When there are fewer
  bots than seats, bots are repeated: lineup k takes bots k, k+1, ... cyclically
  from the field, so over all lineups each bot fills the same number of seats.
- A *seating* puts a lineup's bots into seats. ``rotation = "all"`` uses every
  distinct permutation; ``"cyclic"`` the ``players`` cyclic rotations; the
  default ``"auto"`` uses all permutations for tables of up to 3 players and
  for team games, and cyclic rotations for larger tables. In team games
  (``TEAM_GAMES``) all permutations give every partnership equally often, in
  both seating orders: with rotations alone, a bot would always sit just
  before the same opponent, which in a trick-taking game is measurably unfair
  (two copies of one bot scored differently). ``"cyclic"`` in a team game
  means, for every way to split the lineup into partnerships, the cyclic
  rotations of one seating of it: each bot still partners each other bot in
  turn and sits in every seat, in half as many games.
- A game's key names its deal group, its lineup by the bots' names and its
  seating's number within the lineup: ``g3-alice,bob,carol-s2``. Adding a bot
  or deal groups never changes the key of a game already scheduled, so a
  tournament can grow (characters other than letters, digits and ``_.-~`` in
  a name are %-escaped, so the commas stay unambiguous).
- Every game of deal group g uses the same seed: the (g+1)-th output of
  SplitMix64 seeded with the master seed (``deal_seed``). The seed depends only
  on the master seed and the group part of the game's key, never on the order
  or concurrency of play.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Optional
from urllib.parse import quote

from ..rng import MASK64, SplitMix64
from .config import Config

GAMMA = 0x9E3779B97F4A7C15


def deal_seed(master: int, group: int) -> int:
    """Output number ``group + 1`` of SplitMix64(master), computed directly."""
    rng = SplitMix64((master + group * GAMMA) & MASK64)
    return rng.next_u64()


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed handed to the bot in ``seat`` (its ``start`` info "seed").

    A one-way hash of the game's seed: SplitMix64 can be run backwards, so a
    seed derived with it would let a bot recover the deal of every hand.
    """
    text = f"cardref bot seed {game_seed} {seat}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def game_key(group: int, lineup: tuple[str, ...], seating_index: int) -> str:
    """``g<group>-<bot>,<bot>,...-s<seating>``: stable when the field grows."""
    return f"g{group}-{lineup_name(lineup)}-s{seating_index}"


def lineup_name(lineup: tuple[str, ...]) -> str:
    """The lineup's part of a game key: its bots' names, %-escaped, by commas."""
    return ",".join(quote(name, safe="") for name in lineup)


@dataclass(frozen=True)
class ScheduledGame:
    """One game: its key (``game_key``), seed and seating; ``lineup`` is the
    lineup's position in this schedule, ``order`` the game's."""

    key: str
    order: int
    group: int
    lineup: int
    seating_index: int
    seed: int
    seating: tuple[str, ...]  # a bot name per seat


def lineups(field: list[str], players: int, fmt: str = "round_robin",
            candidate: Optional[str] = None) -> list[tuple[str, ...]]:
    """The tables of bots to play, each a tuple of ``players`` names."""
    if fmt == "gauntlet":
        assert candidate is not None
        others = [name for name in field if name != candidate]
        return [(candidate, *rest) for rest in _fill(others, players - 1)]
    return _fill(field, players)


def _fill(field: list[str], seats: int) -> list[tuple[str, ...]]:
    if len(field) >= seats:
        return list(combinations(field, seats))
    seen: list[tuple[str, ...]] = []
    for k in range(len(field)):
        table = tuple(field[(k + i) % len(field)] for i in range(seats))
        if sorted(table) not in [sorted(t) for t in seen]:
            seen.append(table)
    return seen


def seatings(lineup: tuple[str, ...], rotation: str = "auto",
             teams: Optional[list[list[int]]] = None) -> list[tuple[str, ...]]:
    """The distinct seatings of a lineup, in a fixed order."""
    n = len(lineup)
    if rotation == "auto":
        rotation = "all" if n <= 3 or teams is not None else "cyclic"
    out: list[tuple[str, ...]] = []

    def add(seating: tuple[str, ...]) -> None:
        if seating not in out:
            out.append(seating)

    if rotation == "all":
        for perm in permutations(lineup):
            add(perm)
        return out
    if teams is None:
        for shift in range(n):
            add(lineup[shift:] + lineup[:shift])
        return out
    partnerships: list[frozenset] = []
    for perm in permutations(range(n)):
        split = frozenset(frozenset(lineup[perm[s]] for s in team) for team in teams)
        # The same split with repeated bots is one partnership.
        if split in partnerships:
            continue
        partnerships.append(split)
        seating = tuple(lineup[i] for i in perm)
        for shift in range(n):
            add(seating[shift:] + seating[:shift])
    return out


def build_schedule(config: Config) -> list[ScheduledGame]:
    """Every game of the tournament, ordered by deal group first, so a partial
    run has played whole groups (the bootstrap resamples groups)."""
    tables = lineups(config.bot_names(), config.players, config.format, config.candidate)
    layouts = [seatings(t, config.rotation, config.teams) for t in tables]
    names = [lineup_name(t) for t in tables]
    games: list[ScheduledGame] = []
    for group in range(config.deal_groups):
        seed = deal_seed(config.seed, group)
        for li, layout in enumerate(layouts):
            for si, seating in enumerate(layout):
                games.append(ScheduledGame(
                    key=f"g{group}-{names[li]}-s{si}", order=len(games), group=group,
                    lineup=li, seating_index=si, seed=seed, seating=seating,
                ))
    return games
