"""100 (One Hundred): the readable reference, following ``rules/hundred.md``.

Rules summary (section numbers refer to the rule book, HU-n to its ambiguities):

- §1 3–12 players (2 with ``allow_two_players``), one 52-card deck for up to 6
  players and two for 7 or more (``num_decks``), 3 chips each, hands of 3.
- §4 Seat 0 deals (``first_dealer``); cards are dealt one at a time starting
  left of the dealer; the rest is the stock; the player left of the dealer
  starts, clockwise, with the pile value at 0.
- §5 On a turn a player plays exactly one card (``play C``, or ``play C X`` for
  an ace that sets the value to X). A card that would take the value above 100
  busts; it may only be played when every card in hand busts (HU-6), unless
  ``allow_voluntary_bust``.
- §6 Effects: the black aces set any value 0–100; red aces add 1 (HU-1,
  ``red_ace``); 2♠ doubles (HU-17); the other 2s, 3s, 5♠/5♣ and 6–9 add their
  rank (HU-2); 4s reverse the direction and add nothing (HU-15); 5♥/5♦ take 5
  and jacks take 10, not below 0 (HU-3); tens set 100; Q♥ sets 0; other queens
  add 10; kings add nothing. A bust costs a chip; by default the value then
  restarts at 0 (HU-7, ``bust_rule``). The player then draws (HU-9); an empty
  stock is rebuilt from the pile under its top card (HU-11). A player without
  chips is out: the hand goes under the pile (HU-10).
- §7 The last player with chips wins; the others rank by when they went out.
  After ``max_actions`` actions the game stops and ranks by chips (HU-18).

Cards are strings such as ``"10H"`` everywhere, hands and piles plain lists.
"""

from __future__ import annotations

from typing import Any, Optional

from ..errors import InvalidParamsError
from ..params import Bool, Choice, Int
from ..results import competition_placements
from ..rng import SplitMix64
from .base import GameSpec, ReferenceState, counting_now, fired

#: 2 players only with allow_two_players (check_config).
GAME = GameSpec(id="hundred", min_players=2, max_players=12, default_players=5,
                rule_prefix="HU", loader="cardref.reference.loading.hundred",
                heuristic=True, search=True)
GAME_ID = GAME.id
LIMIT = 100
#: Integer keys are 64-bit in the Rust core; both engines reject larger values.
INT64_MAX = (1 << 63) - 1
#: With ``allow_negative`` the value has no floor in the rule book; the engines
#: stop it here so that repeated doubling of a negative value stays finite (HU-22).
NEGATIVE_FLOOR = -1_000_000_000


#: The rule points of the rule book's §11: every clause that can fire in play.
RULE_POINTS = {
    "HU-P1": "§4 The first deal: `hand_size` cards to each player from the dealer's left.",
    "HU-P2": "§5.3 A value-choosing ace is played and sets the value it names (HU-4).",
    "HU-P3": "§5.3 Every card in hand busts: the player must play one and bust (HU-6).",
    "HU-P4": "§5.3 `allow_voluntary_bust`: a player busts though it held a safe card.",
    "HU-P5": "§6.1 The 2S doubles the value (HU-17).",
    "HU-P6": "§6.1 A 4 reverses the direction.",
    "HU-P7": "§6.1 A 4 with two players left: the turn passes to the other as usual (HU-15).",
    "HU-P8": "§6.1 A 10 sets the value to 100.",
    "HU-P9": "§6.1 The QH sets the value to 0.",
    "HU-P10": "§6.1 A J, 5H or 5D would take the value below 0: it stops at 0.",
    "HU-P11": "§6.1 `allow_negative`: a J, 5H or 5D takes the value below 0 (HU-3).",
    "HU-P12": "§6.1 `red_ace = \"zero\"`: a red ace leaves the value as it is.",
    "HU-P13": "§6.1 `red_ace = \"choose\"`: a red ace sets the value it names (HU-1).",
    "HU-P14": "§6.1 A play brings the value to exactly 100, which is safe (HU-5).",
    "HU-P15": "§6.2 A safe play: the value is set and the player draws.",
    "HU-P16": "§6.3 A play busts: the player loses a chip.",
    "HU-P17": "§6.3 `bust_rule = \"reset\"`: after a bust the value goes back to 0.",
    "HU-P18": "§6.3 `bust_rule = \"void\"`: after a bust the value stays; the busting card has no "
            "effect.",
    "HU-P19": "§6.3 `bust_rule = \"redeal\"`: after a bust the buster deals anew and its left "
            "neighbour starts.",
    "HU-P20": "§6.3 `bust_rule = \"redeal\"`: a buster out of chips still deals the new deal "
            "(HU-8).",
    "HU-P21": "§6.3 A player loses its last chip: it is out, its hand under the pile (HU-10).",
    "HU-P22": "§6.4 The stock is empty: it is rebuilt from the pile under its top card, shuffled "
            "(HU-11).",
    "HU-P23": "§7.2 One player is left: it wins.",
    "HU-P24": "§7.3 The action cap ends the game: the players still in are ranked by chips.",
    "HU-P25": "§7.3 At the action cap, players still in with equal chips share a rank.",
}


# §2 Card notation and deck order ---------------------------------------------

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = ["C", "D", "H", "S"]
#: One deck in canonical order: suits C, D, H, S; ranks 2 .. A within a suit.
CARDS = [rank + suit for suit in SUITS for rank in RANKS]


def rank_of(card: str) -> str:
    """The rank of a card code: "10" in "10H"."""
    return card[:-1]


def canonical_index(card: str) -> int:
    """Position in the canonical order; legal actions are listed by it (§2.2)."""
    return CARDS.index(card)


# §3 State ---------------------------------------------------------------------


class State(ReferenceState):
    """A game of 100. Stock: element 0 is the top; pile: the last element is the top."""

    GAME_ID = GAME_ID

    def __init__(self, players: int, params: dict[str, Any], seed: int, deck: Optional[list[str]]):
        self.players = players
        self.params = params
        self.rng = SplitMix64(seed)
        self.chips = [params["chips"]] * players
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.stock: list[str] = []
        self.pile: list[str] = []
        self.value = 0
        self.dir = 1
        self.current: Optional[int] = None
        self.dealer = params["first_dealer"]
        self.deal_number = 1
        self.phase = "PLAY"
        self.elimination_log: list[int] = []
        self.action_count = 0
        self.result: Optional[dict[str, Any]] = None
        self.recent: list[list[Any]] = []
        self._history: list[str] = []
        fired("HU-P1")
        self._deal(list(deck) if deck is not None else self._shuffled_deck())

    # §3.1 Seats and direction -----------------------------------------------

    def is_active(self, seat: int) -> bool:
        """A seat with chips is in the game."""
        return self.chips[seat] > 0

    def next_active(self, seat: int, direction: int) -> int:
        """The first active seat in seat+d, seat+2d, ... (§3.1)."""
        for step in range(1, self.players + 1):
            other = (seat + step * direction) % self.players
            if self.is_active(other):
                return other
        raise AssertionError("no active seat")

    # §4 Setup, deal, who starts ----------------------------------------------

    def _shuffled_deck(self) -> list[str]:
        cards = canonical_deck(self.players, self.params)
        self.rng.shuffle(cards)
        return cards

    def _deal(self, deck: list[str]) -> None:
        """§4.4: one card at a time from left of the dealer, over active seats."""
        self.dir, self.value, self.pile = 1, 0, []
        self.hands = [[] for _ in range(self.players)]
        order = [self.next_active(self.dealer, 1)]
        while len(order) < self.players - len(self.elimination_log):
            order.append(self.next_active(order[-1], 1))
        dealt = self.params["hand_size"] * len(order)
        for i, card in enumerate(deck[:dealt]):
            self.hands[order[i % len(order)]].append(card)
        self.stock = deck[dealt:]
        self.current = order[0]

    # §5 Turn structure and legal actions -------------------------------------

    def current_player(self) -> Optional[int]:
        return self.current if self.phase == "PLAY" else None

    def legal_actions(self) -> list[str]:
        """§5.3: every playable card in canonical order, a value-choosing ace once
        per value 0..100."""
        if self.phase != "PLAY":
            return []
        actions: list[str] = []
        for card in self._playable():
            if self._chooses_value(card):
                actions += [f"play {card} {x}" for x in range(LIMIT + 1)]
            else:
                actions.append(f"play {card}")
        return actions

    def illegal_reason(self, action: str) -> str:
        words = action.split(" ") if isinstance(action, str) else []
        if len(words) not in (2, 3) or words[0] != "play" or words[1] not in CARDS:
            return "not an action of hundred (play C, or play C X for a value-choosing ace)"
        card = words[1]
        if card not in self.hands[self.current]:
            return f"{card} is not in its hand"
        if self._chooses_value(card) and len(words) == 2:
            return f"{card} sets the value: play {card} X with X from 0 to 100"
        if not self._chooses_value(card) and len(words) == 3:
            return f"{card} does not take a value"
        if len(words) == 3:
            return "the value must be written 0 to 100 without sign or leading zeros"
        busted = self._new_value(card, self.value)
        return f"{card} would bust ({busted}) while a safe card exists"

    def _apply_unchecked(self, action: str) -> None:
        self._play(action)

    def _playable(self) -> list[str]:
        """§5.3 (HU-6): the distinct cards of the hand (HU-13) the player may play, in
        canonical order: the safe ones while one exists, unless voluntary busts are
        allowed; else all."""
        hand = sorted(set(self.hands[self.current]), key=canonical_index)
        safe = [card for card in hand if self._is_safe(card)]
        return safe if safe and not self.params["allow_voluntary_bust"] else hand

    def _is_safe(self, card: str) -> bool:
        """A value-choosing ace, or a card that keeps the value at 100 or less (HU-5)."""
        return self._chooses_value(card) or self._new_value(card, self.value) <= LIMIT

    # §6.1 Card effects -------------------------------------------------------

    def _chooses_value(self, card: str) -> bool:
        """Black aces always set a value; red aces only with ``red_ace = choose`` (HU-1)."""
        if card in ("AS", "AC"):
            return True
        return card in ("AH", "AD") and self.params["red_ace"] == "choose"

    def _new_value(self, card: str, value: int) -> int:
        """The value after playing ``card`` (not a value-choosing ace) on ``value``.

        A result above 100 means the play busts (HU-5).
        """
        rank = rank_of(card)
        if card == "2S":
            result = 2 * value  # HU-17
        elif card in ("AH", "AD"):
            result = value + 1 if self.params["red_ace"] == "one" else value
        elif rank in ("4", "K"):
            result = value
        elif card in ("5H", "5D"):
            result = value - 5
        elif rank == "J":
            result = value - 10
        elif rank == "10":
            result = LIMIT
        elif card == "QH":
            result = 0
        elif rank == "Q":
            result = value + 10
        else:
            result = value + int(rank)  # HU-2: 2, 3, 5S, 5C, 6 .. 9 at face value
        floor = NEGATIVE_FLOOR if self.params["allow_negative"] else 0  # HU-3
        return max(floor, result)

    # §6.2 Full resolution of a play --------------------------------------------

    def _note_play(self, card: str, new: int) -> None:
        """The rule points of a play, from the card, the hand and the value."""
        if self._chooses_value(card):
            fired("HU-P2")
            if card in ("AH", "AD"):
                fired("HU-P13")
        elif not any(self._is_safe(c) for c in self.hands[self.current]):
            fired("HU-P3")
        elif new > LIMIT:
            fired("HU-P4")
        rank = rank_of(card)
        if card == "2S":
            fired("HU-P5")
        if rank == "4":
            fired("HU-P6")
            if self.players - len(self.elimination_log) == 2:
                fired("HU-P7")
        if rank == "10":
            fired("HU-P8")
        if card == "QH":
            fired("HU-P9")
        drop = 10 if rank == "J" else 5 if card in ("5H", "5D") else 0
        if drop and self.value - drop < 0:
            fired("HU-P11" if self.params["allow_negative"] else "HU-P10")
        if card in ("AH", "AD") and self.params["red_ace"] == "zero":
            fired("HU-P12")
        if new == LIMIT:
            fired("HU-P14")
        if new <= LIMIT:
            fired("HU-P15")

    def _play(self, action: str) -> None:
        """§6.2: the full resolution of ``play C [X]``."""
        seat = self.current
        words = action.split(" ")
        card = words[1]
        # HU-4: an ace sets the value it names and never busts.
        new = int(words[2]) if len(words) == 3 else self._new_value(card, self.value)
        if counting_now():
            self._note_play(card, new)
        self._history.append(action)
        self.recent = ([*self.recent, [seat, action]])[-self.players :]
        self.hands[seat].remove(card)
        self.pile.append(card)
        if rank_of(card) == "4":
            self.dir = -self.dir  # HU-15
        redealt = False
        if new <= LIMIT:
            self.value = new
        else:
            redealt = self._bust(seat)
        if self.is_active(seat) and not redealt:
            self._draw(seat)
        if len(self.elimination_log) == self.players - 1:
            self._end("LAST_STANDING")
        elif not redealt:
            self.current = self.next_active(seat, self.dir)
        self.action_count += 1
        if self.phase == "PLAY" and self.action_count >= self.params["max_actions"]:
            self._end("CAP")

    # §6.3 Bust penalty ---------------------------------------------------------

    def _bust(self, seat: int) -> bool:
        """Lose a chip, then apply ``bust_rule``; True if a new deal was made."""
        fired("HU-P16")
        self.chips[seat] -= 1
        if self.chips[seat] == 0:
            self._eliminate(seat)
        rule = self.params["bust_rule"]
        if rule == "reset":
            fired("HU-P17")
            self.value = 0
        elif rule == "void":
            fired("HU-P18")
        elif rule == "redeal" and len(self.elimination_log) < self.players - 1:
            fired("HU-P19")
            if not self.is_active(seat):
                fired("HU-P20")
            self.dealer = seat  # HU-8: the buster deals, even if just eliminated
            self.deal_number += 1
            self._deal(self._shuffled_deck())
            return True
        return False  # "void": the value stays

    def _eliminate(self, seat: int) -> None:
        """HU-10: the rest of the hand goes under the pile, in hand order."""
        fired("HU-P21")
        self.pile = self.hands[seat] + self.pile
        self.hands[seat] = []
        self.elimination_log.append(seat)

    # §6.4 Drawing -----------------------------------------------------------

    def _draw(self, seat: int) -> None:
        """Draw the top card; an empty stock is first rebuilt from the pile (HU-11)."""
        if not self.stock and not self._rebuild_stock():
            return
        self.hands[seat].append(self.stock.pop(0))

    def _rebuild_stock(self) -> bool:
        """HU-11: the pile under its top card, shuffled, becomes the stock; False
        if there is no card under the top."""
        under_top = self.pile[:-1]
        if not under_top:
            return False
        fired("HU-P22")
        self.rng.shuffle(under_top)
        self.stock = under_top
        self.pile = self.pile[-1:]
        return True

    # §7 Round structure, game end, termination ------------------------------

    def _end(self, reason: str) -> None:
        self.phase = "GAME_OVER"
        self.current = None
        ranking = self._ranking(reason)
        if reason == "LAST_STANDING":
            fired("HU-P23")
        else:
            fired("HU-P24")
            if any(len(group) > 1 for group in ranking):  # only the players still in share
                fired("HU-P25")
        self.result = {"reason": reason, "ranking": ranking}

    def _ranking(self, reason: str) -> list[list[int]]:
        """§7.2/7.3: active seats first (by chips at the cap), then the eliminated,
        the last one out ranking best."""
        active = [s for s in range(self.players) if self.is_active(s)]
        groups: list[list[int]] = []
        if reason == "LAST_STANDING":
            groups.append(active)
        else:
            for count in sorted({self.chips[s] for s in active}, reverse=True):
                groups.append([s for s in active if self.chips[s] == count])
        groups += [[s] for s in reversed(self.elimination_log)]
        return groups

    def scores(self) -> list[int]:
        return list(self.chips)

    def final_placements(self) -> list[int]:
        rank = {seat: i for i, group in enumerate(self.result["ranking"]) for seat in group}
        return competition_placements(self.players, lambda a, b: rank[a] < rank[b])

    def rounds(self) -> int:
        """Deals dealt so far (more than one only with ``bust_rule = redeal``)."""
        return self.deal_number

    # Observation and JSON ------------------------------------------------------

    def observation(self, seat: int) -> dict[str, Any]:
        """§3.2 public information plus the seat's own hand (HU-19)."""
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} does not exist; seats are 0 to {self.players - 1}")
        return {
            "game": GAME_ID,
            "seat": seat,
            "players": self.players,
            "params": dict(self.params),
            "phase": self.phase,
            "to_act": self.current_player(),
            "hand": list(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "stock_size": len(self.stock),
            "pile": list(self.pile),
            "value": self.value,
            "dir": self.dir,
            "chips": list(self.chips),
            "dealer": self.dealer,
            "deal_number": self.deal_number,
            "elimination_log": list(self.elimination_log),
            "action_count": self.action_count,
            "result": self._result_copy(),
            "recent": [list(pair) for pair in self.recent],
        }

    def _result_copy(self) -> Optional[dict[str, Any]]:
        if self.result is None:
            return None
        ranking = [list(group) for group in self.result["ranking"]]
        return {"reason": self.result["reason"], "ranking": ranking}

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": GAME_ID,
            "players": self.players,
            "params": dict(self.params),
            "rng": self.rng.state,
            "phase": self.phase,
            "current": self.current,
            "chips": list(self.chips),
            "hands": [list(h) for h in self.hands],
            "stock": list(self.stock),
            "pile": list(self.pile),
            "value": self.value,
            "dir": self.dir,
            "dealer": self.dealer,
            "deal_number": self.deal_number,
            "elimination_log": list(self.elimination_log),
            "action_count": self.action_count,
            "result": self._result_copy(),
            "history": list(self._history),
            "recent": [list(pair) for pair in self.recent],
        }


# §8 Variants and config keys ------------------------------------------------


class DeckCount:
    """``num_decks``: the string "auto" or the integer 1 or 2."""

    key = "num_decks"
    default = "auto"

    def check(self, value: Any) -> Any:
        if value == "auto" and isinstance(value, str):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and value in (1, 2):
            return value
        raise InvalidParamsError(f'num_decks: must be "auto", 1 or 2, got {value!r}')


VARIANTS = [
    Bool("allow_two_players", False),
    DeckCount(),
    Int("chips", 3, low=1, high=INT64_MAX),
    Int("hand_size", 3, low=1, high=INT64_MAX),
    Int("first_dealer", 0, low=0, high=INT64_MAX),
    Choice("red_ace", ["one", "choose", "zero"]),
    Bool("allow_negative", False),
    Bool("allow_voluntary_bust", False),
    Choice("bust_rule", ["reset", "void", "redeal"]),
    Int("max_actions", 5000, low=1, high=INT64_MAX),
]


def decks(players: int, params: dict[str, Any]) -> int:
    """Resolved deck count: ``auto`` is 1 deck up to 6 players, else 2 (HU-12)."""
    if params["num_decks"] == "auto":
        return 1 if players <= 6 else 2
    return params["num_decks"]


def check_config(players: int, params: dict[str, Any]) -> None:
    """Cross-key checks of §8."""
    if players == 2 and not params["allow_two_players"]:
        raise InvalidParamsError(
            "players: 2 players need allow_two_players = true (3 to 12 otherwise)"
        )
    if params["first_dealer"] >= players:
        raise InvalidParamsError(
            f"first_dealer: must be a seat from 0 to {players - 1}, got {params['first_dealer']}"
        )
    cards = 52 * decks(players, params)
    if params["hand_size"] * players >= cards:
        raise InvalidParamsError(
            f"hand_size: hand_size x players must be below the {cards} cards in play, "
            f"got {params['hand_size']} x {players}"
        )


def canonical_deck(players: int, params: dict[str, Any]) -> list[str]:
    """The cards in play: one deck, or two decks one after the other (§2.2)."""
    return CARDS * decks(players, params)
