"""The two engines read side by side: a game's Rust rules
(``rust/src/games/<id>/rules.rs``) and its Python reference
(``python/cardref/reference/<id>.py``) mark the rule book's sections with the
same headings (``// §5.2 Title`` and ``# §5.2 Title``), in the rule book's
order, and define the same functions under each heading.

Compared are the free functions and the functions of the game's state and
of its ``Params`` (Rust), the module's functions and the methods of its
``State`` (Python), without leading underscores. Left out on both sides:
constructors (``new`` and ``__init__``), dunder methods, functions nested in
functions, the readers of a variant key's own type, and whatever sits under
a heading without a § (the Rust helpers that make the rules fast, the
Python observation and JSON). The intended exceptions are listed in
``EXCEPTIONS``, each with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardref import registry

ROOT = Path(__file__).resolve().parent.parent

#: (game, section title, engine) -> names only that engine defines there, and why.
EXCEPTIONS: dict[tuple[str, str, str], set[str]] = {
    # Back Alley: Rust hands are bit sets, in canonical order by construction.
    ("back_alley", "§2 Card notation and deck order", "python"): {"in_canonical_order"},
    # Back Alley: a trick's winner from the trump rank (Python) or from one
    # strength per card that also ranks the led suit (Rust).
    ("back_alley", "§6.3 Resolving a trick", "python"): {"trump_rank"},
    ("back_alley", "§6.3 Resolving a trick", "rust"): {"strength"},
    # Back Alley: Python resolves a named schedule when it is used, Rust when
    # it reads the key (into the hand sizes).
    ("back_alley", "§8 Variants (config keys, defaults first)", "python"): {"schedule_of"},
    ("back_alley", "§8 Variants (config keys, defaults first)", "rust"): {"named_schedule"},
    # 5 Alive: the Rust core's cards are kind indices, in kind order already;
    # it keeps the active seats as a bit mask, not a list.
    ("five_alive", "§2 Card notation and deck order", "python"): {"kind_order"},
    ("five_alive", "§3.1 Seats and direction", "python"): {"active_seats"},
    # 5 Alive: the common play (a card that moves no cards, the turn passing on)
    # stays inlined in Rust's step; the cards that move cards (D1, D2, REDEAL,
    # BOMB), the game's end and the action cap go on out of line.
    ("five_alive", "§6.1 Playing a card", "rust"): {"pass_turn", "play_moving_card"},
    ("five_alive", "§6.2 Card effects", "rust"): {"make_others_draw", "move_cards"},
    ("five_alive", "§7.3-7.4 Game end", "rust"): {"close_batch"},
    ("five_alive", "§7.5 Termination", "rust"): {"end_at_cap"},
    # 100: the Rust core's cards are their canonical index, so it has no lookup for one.
    ("hundred", "§2 Card notation and deck order", "python"): {"canonical_index"},
    # 100: Rust states each card's effect as v -> mul·v + add and builds its
    # tables of new values and safe cards from that.
    ("hundred", "§6.1 Card effects", "rust"): {"effect"},
    # 100: the rare branches of a play (a bust, the action cap) are out of line
    # in Rust, so that the common play stays inlined in the playout loop.
    ("hundred", "§6.2 Full resolution of a play", "rust"): {"finish_bust"},
    ("hundred", "§7 Round structure, game end, termination", "rust"): {"reach_cap"},
    # Twenty-Two: Rust numbers its cards rank * 4 + suit, which is play order,
    # so its sets need no sorting.
    ("twenty_two", "§2 Card notation and deck order", "python"): {"play_order", "in_play_order"},
    # Twenty-Two: the turn order from a seat, as a list in Python and one
    # table look-up for the next seat in Rust.
    ("twenty_two", "§4 Setup, deal, dealer, leader", "python"): {"seats_after"},
    ("twenty_two", "§4 Setup, deal, dealer, leader", "rust"): {"next_active"},
    # Twenty-Two: Python takes an action's cards in any order and sorts them
    # (Rust reads them into a set), and Rust counts and indexes the legal
    # actions without listing them (a discard may have 2,048).
    ("twenty_two", "§5 Turn structure and legal actions", "python"): {"canonical_action"},
    ("twenty_two", "§5 Turn structure and legal actions", "rust"): {"legal_count", "legal_at"},
}

RUST_RULER = re.compile(r"^// -{10,}$")
RUST_FN = re.compile(r"^(    )?(?:pub(?:\([a-z]+\))? )?(?:const )?fn (\w+)")
RUST_IMPL = re.compile(r"^impl(?:<[^>]*>)? (?:[\w:<>]+ for )?(\w+)")
PY_HEADING = re.compile(r"^\s*# (.+?) -{3,}$")
PY_DEF = re.compile(r"^(    )?def (\w+)")
PY_CLASS = re.compile(r"^class (\w+)")
SECTION = re.compile(r"^§(\d+(?:\.\d+)?)")


def rust_sections(path: Path) -> dict[str, set[str]]:
    """Function names per heading of a Rust file: a heading is a comment line
    between two rulers; a function counts if it is free or belongs to the
    state (the type the file implements ``Rules`` for) or to ``Params``."""
    text = path.read_text(encoding="utf-8")
    state = re.search(r"^impl(?:<[^>]*>)? Rules for (\w+)", text, re.M)
    assert state, f"{path}: no impl Rules"
    counted = {state.group(1), "Params"}
    lines = text.splitlines()
    sections: dict[str, set[str]] = {}
    current, owner = "", None
    for i, line in enumerate(lines):
        ruled = 0 < i < len(lines) - 1 and RUST_RULER.match(lines[i - 1]) \
            and RUST_RULER.match(lines[i + 1])
        if ruled and line.startswith("// "):
            current = line[3:].strip()
            sections.setdefault(current, set())
        elif match := RUST_IMPL.match(line):
            owner = match.group(1)
        elif line == "}":
            owner = None
        elif (match := RUST_FN.match(line)) and (not match.group(1) or owner in counted):
            sections.setdefault(current, set()).add(match.group(2))
    return sections


def python_sections(path: Path) -> dict[str, set[str]]:
    """Function names per heading of a Python file (``# Title ----``): the
    module's functions and the methods of ``State``."""
    sections: dict[str, set[str]] = {}
    current, owner = "", None
    for line in path.read_text(encoding="utf-8").splitlines():
        if match := PY_HEADING.match(line):
            current = match.group(1).strip()
            sections.setdefault(current, set())
        elif match := PY_CLASS.match(line):
            owner = match.group(1)
        elif (match := PY_DEF.match(line)) and (not match.group(1) or owner == "State"):
            if not match.group(1):
                owner = None
            sections.setdefault(current, set()).add(match.group(2).lstrip("_"))
    return sections


def rule_sections(sections: dict[str, set[str]]) -> dict[str, set[str]]:
    """The § headings that hold functions, with the names compared
    (constructors and dunders left out)."""
    left_out = {"new", "init"}
    compared = {title: {n for n in names if n not in left_out and not n.endswith("__")}
                for title, names in sections.items() if title.startswith("§")}
    return {title: names for title, names in compared.items() if names}


def number(title: str) -> tuple[int, ...]:
    match = SECTION.match(title)
    assert match, f"{title!r} has no section number"
    return tuple(int(part) for part in match.group(1).split("."))


def files(game_id: str) -> tuple[Path, Path]:
    """The game's Rust rules and its Python reference module (wherever it is
    registered from: the game for the tests only lives in tests/testgame/)."""
    return (ROOT / "rust" / "src" / "games" / game_id / "rules.rs",
            Path(registry.module(game_id).__file__))


def rule_book(game_id: str) -> Path:
    """docs/rules/<id>.md, or the rules.md beside a test-only game's module."""
    book = ROOT / "docs" / "rules" / f"{game_id}.md"
    return book if book.exists() else files(game_id)[1].parent / "rules.md"


@pytest.mark.parametrize("game_id", registry.ids())
def test_both_engines_have_the_same_headings_in_rule_book_order(game_id: str) -> None:
    rust_path, python_path = files(game_id)
    rust = list(rule_sections(rust_sections(rust_path)))
    python = list(rule_sections(python_sections(python_path)))
    for path, titles in ((rust_path, rust), (python_path, python)):
        numbers = [number(t) for t in titles]
        assert numbers == sorted(numbers), f"{path.name}: sections out of order: {titles}"
    assert sorted(rust) == sorted(python)
    book = rule_book(game_id).read_text(encoding="utf-8")
    for title in rust:
        major, *minor = number(title)
        heading = rf"^##+ {major}\." + (rf"{minor[0]} " if minor else " ")
        assert re.search(heading, book, re.M), f"{title!r} is no section of the rule book"


@pytest.mark.parametrize("game_id", registry.ids())
def test_both_engines_define_the_same_functions_under_each_heading(game_id: str) -> None:
    rust_path, python_path = files(game_id)
    rust = rule_sections(rust_sections(rust_path))
    python = rule_sections(python_sections(python_path))
    problems = []
    for title in sorted(set(rust) | set(python), key=number):
        only_rust = rust.get(title, set()) - python.get(title, set())
        only_rust -= EXCEPTIONS.get((game_id, title, "rust"), set())
        only_python = python.get(title, set()) - rust.get(title, set())
        only_python -= EXCEPTIONS.get((game_id, title, "python"), set())
        if only_rust or only_python:
            problems.append(f"{title}: only in Rust {sorted(only_rust)}, "
                            f"only in Python {sorted(only_python)}")
    assert not problems, f"{game_id}:\n" + "\n".join(problems)


def test_every_exception_is_still_needed() -> None:
    """An exception that no longer hides a difference is dropped from the list."""
    for (game_id, title, engine), names in EXCEPTIONS.items():
        rust_path, python_path = files(game_id)
        sections = rule_sections(rust_sections(rust_path) if engine == "rust"
                                 else python_sections(python_path))
        assert names <= sections.get(title, set()), (game_id, title, engine, names)
