"""Scenario files written by the commands: what ``cardref verify`` found (the
engines' values side by side, or the invariant broken, in an undecided step),
and ``cardref scenario new``'s starting point (the engines' current values,
marked as not yet worked out by hand). Format: ``docs/scenarios.md``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import cardref

from ..reference.base import counting
from . import toml_out
from .lockstep import INVARIANT, Finding, Played, first_difference
from .table import Table

#: Legal-action lists longer than this are left out of a new file's expectations.
MAX_LISTED = 40
#: State JSON values up to this size are copied into an undecided record.
SMALL_VALUE = 200

DECIDE = """To decide it: work out from docs/rules/{game}.md what the rule book says
should happen, write that under [step.expect] (or [[step.observe]]), delete the
[step.undecided] table and the `undecided` line, and list in `covers` the
rule-book ids the file pins. Until then `cardref scenario check` fails on it."""


def header(table: Table) -> list[str]:
    lines = [f"game = {toml_out.value(table.game_id)}", f"players = {table.players}"]
    if table.variant:
        lines.append(f"variant = {toml_out.value(table.variant)}")
    lines.append(f"seed = {table.seed}")
    return lines


def undecided_record(finding: Finding) -> list[str]:
    """The ``[step.undecided]`` table of a finding."""
    lines = ["[step.undecided]"]
    if finding.kind == INVARIANT:
        lines += [f"invariant = {toml_out.value(finding.name)}",
                  f"engines = {toml_out.value(list(finding.engines))}",
                  f"detail = {toml_out.value(finding.detail)}"]
        return lines
    lines.append(f"field = {toml_out.value(finding.name)}")
    if finding.detail:
        lines.append(f"detail = {toml_out.value(finding.detail)}")
    lines += [toml_out.pair("rust", finding.rust), toml_out.pair("reference", finding.reference)]
    if finding.state_diff:
        lines.append(f"state_keys = {toml_out.value(sorted(finding.state_diff))}")
        small = {k: v for k, v in finding.state_diff.items()
                 if len(json.dumps(v)) <= SMALL_VALUE}
        if small:
            lines += [toml_out.pair("rust_state", {k: v["rust"] for k, v in small.items()}),
                      toml_out.pair("reference_state",
                                    {k: v["reference"] for k, v in small.items()})]
    return lines


def finding_scenario(played: Played, command: str, origin: str) -> str:
    """A scenario file that replays ``played`` up to its finding and records it, undecided."""
    finding = played.finding
    assert finding is not None
    table = played.table
    actions = played.actions[:finding.step]
    what = finding.headline()
    note = (f"Found by `{command}`;\n{origin}: {what}.\n\n"
            + DECIDE.format(game=table.game_id))
    lines = [toml_out.comment(note), "",
             f"title = {toml_out.value(f'{table.game_id}: {what}')}",
             "covers = []",
             f"undecided = {toml_out.value('found by cardref verify: ' + what)}",
             *header(table), "", "[[step]]", f"do = {toml_out.value(actions)}",
             *undecided_record(finding), ""]
    return "\n".join(lines)


def new_scenario(table: Table, actions: list[str], deck: Optional[list[str]], each: bool,
                 title: str) -> str:
    """A scenario of ``actions`` with the engines' values filled in as the
    expectations, after every action (``each``) or after the last one; marked
    undecided: they are a starting point, not a hand-worked result. Raises
    ValueError naming an action an engine refuses."""
    engines = ["rust", "reference"] if table.game_id in cardref.games() else ["reference"]
    states = {e: table.load(e).new_state(seed=table.seed, deck=deck) for e in engines}
    counts: Counter = Counter()
    steps = [[]] + [[a] for a in actions] if each else [actions]
    note = ("Written by `cardref scenario new` with the engines' values filled in: a\n"
            "starting point. Work out every value from docs/rules/"
            f"{table.game_id}.md by hand, fix\nwhat differs, say in comments how you worked "
            "it out, then delete the `undecided`\nline and list the ids the file pins in "
            "`covers`.")
    lines = [toml_out.comment(note), "", f"title = {toml_out.value(title)}", "covers = []",
             f"undecided = {toml_out.value('values filled in by cardref scenario new')}",
             *header(table)]
    if deck is not None:
        lines.append(f"deck = {toml_out.value(deck)}")
    done = 0
    for step in steps:
        counts.clear()
        for action in step:
            for engine, state in states.items():
                try:
                    if engine == "reference":
                        with counting(counts):
                            state.apply(action)
                    else:
                        state.apply(action)
                except ValueError as e:
                    raise ValueError(f"action {done + 1} ({action!r}) on the {engine} "
                                     f"engine: {e}") from None
            done += 1
        lines += ["", "[[step]]", f"do = {toml_out.value(step)}"]
        lines += _expectations(states, counts, table.players, done)
    return "\n".join(lines) + "\n"


def _expectations(states: dict[str, Any], counts: Counter, players: int,
                  done: int) -> list[str]:
    ref = states["reference"]
    if "rust" in states:
        differ = first_difference(states["rust"], ref, players, done)
        if differ is not None:
            return undecided_record(differ)
    lines = ["[step.expect]"]
    current = ref.current_player()
    lines.append(f"current_player = {toml_out.value('none' if current is None else current)}")
    legal = ref.legal_actions()
    if 0 < len(legal) <= MAX_LISTED:
        lines.append(f"legal = {toml_out.value(legal)}")
    elif legal:
        lines.append(f"# {len(legal)} legal actions, not listed")
    lines.append(f"scores = {toml_out.value(ref.scores())}")
    lines.append(f"terminal = {toml_out.value(ref.is_terminal())}")
    if ref.placements() is not None:
        lines.append(f"placements = {toml_out.value(ref.placements())}")
    if counts:
        lines.append(f"fired = {toml_out.value(sorted(counts, key=_point_order))}")
    return lines


def _point_order(point: str) -> int:
    return int(point.rsplit("P", 1)[1])


def write(path: Path, text: str) -> Path:
    """Writes ``text`` to ``path``, refusing to overwrite a file."""
    if path.exists():
        raise FileExistsError(f"{path} exists; give another file with -o")
    path.write_text(text, encoding="utf-8")
    return path
