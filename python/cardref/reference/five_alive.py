"""5 Alive: the readable reference, following ``rules/five_alive.md``.

Rules summary (section numbers refer to the rule book, FA-n to its ambiguities):

- §1-2 A deck of 77 cards (``hasbro77``) or 75 (``alt75``, FA-1): number cards
  ``0``..``7`` and wild cards ``D1 D2 PASS REV SKIP =21 =10 =0 REDEAL BOMB``.
  Each player (each team in team play) has ``lives`` lives, 5 by default.
- §4 Each round: the direction is reset to clockwise (FA-4), the canonical deck
  is shuffled (round 1 may use an explicit deck), ``hand_size`` cards are dealt
  one at a time clockwise from the dealer's left to the active players, and the
  rest is the draw pile. The player after the dealer in the direction of play
  starts.
- §5 On a turn the player plays one card: any wild card, or a number card that
  keeps the running total at 21 or less (so ``0`` always fits, FA-7, FA-8). Only
  a player who can play nothing flips, i.e. loses a life and resets the total to
  0 (FA-5, FA-6).
- §6 Card effects: numbers add, ``=21/=10/=0`` set the total, ``REV`` turns the
  direction (FA-20), ``SKIP`` skips the next active player (FA-19), ``D1/D2``
  make every other player draw in turn order (FA-16), rebuilding the draw pile
  from the discard pile when it runs out (FA-17), ``REDEAL`` gathers all hands
  and deals them out again (FA-13, FA-14), ``BOMB`` makes every other player
  answer with a ``0`` or lose a life (FA-9, FA-10, FA-11), ``PASS`` does nothing
  (FA-21).
- §7 A player who empties their hand goes out: everybody else loses a life
  (FA-12) and a new round starts with that player as dealer. A player with no
  lives is out of the game at once (FA-18, FA-22); the last one standing wins.
  Sudden death ends the game at the first elimination (FA-23); team play shares
  lives per team (FA-24, FA-25); an action cap ends endless games (FA-26).

Actions: ``play K`` (one per distinct playable code, in canonical kind order),
``flip``; while an optional Bomb awaits answers: ``respond 0``, ``decline``.
"""

from __future__ import annotations

from typing import Any, Optional

from ..errors import InvalidParamsError
from ..params import Bool, Choice, Int
from ..rng import SplitMix64
from .base import GameSpec, ReferenceState, counting_now, fired

#: 7 players only with allow_seven_players (check_config).
GAME = GameSpec(id="five_alive", min_players=2, max_players=7, default_players=4,
                rule_prefix="FA", loader="cardref.reference.loading.five_alive",
                heuristic=True, search=True)
GAME_ID = GAME.id

#: The rule points of the rule book's §11: every clause that can fire in play.
RULE_POINTS = {
    "FA-P1": "§4.2 The first round is dealt: `hand_size` cards to each player from the dealer's "
            "left.",
    "FA-P2": "§4.2 `reset_direction_each_round = false`: a later round keeps the "
            "counter-clockwise direction of the last one.",
    "FA-P3": "§5.3 The player can play no card: it must flip.",
    "FA-P4": "§5.3 `allow_voluntary_flip`: a player flips though it could play a card.",
    "FA-P5": "§6.2 A number card adds its value to the total.",
    "FA-P6": "§6.2 A number card brings the total to exactly 21.",
    "FA-P7": "§6.2 `=21` sets the total to 21.",
    "FA-P8": "§6.2 `=10` sets the total to 10.",
    "FA-P9": "§6.2 `=0` sets the total to 0.",
    "FA-P10": "§6.2 PASS: nothing changes but the turn passes on.",
    "FA-P11": "§6.2 REV reverses the direction.",
    "FA-P12": "§6.2 REV with two active players: the opponent plays next, as after a PASS (FA-20).",
    "FA-P13": "§6.2 SKIP: the next active player loses its turn.",
    "FA-P14": "§6.2 SKIP with two active players: the player plays again at once (FA-19).",
    "FA-P15": "§6.2 D1: each target draws one card, in turn order.",
    "FA-P16": "§6.2 D2: each target draws two cards, in turn order.",
    "FA-P17": "§6.2 `team_wilds_hit_teammates = false`: a D1, D2 or BOMB spares the player's "
            "teammates.",
    "FA-P18": "§6.2 REDEAL as the player's last card: the total is 0 and the round ends, no "
            "redeal (FA-14).",
    "FA-P19": "§6.3 A draw finds no card even after rebuilding the draw pile: the player gets "
            "fewer cards.",
    "FA-P20": "§6.4 The draw pile is empty: it is rebuilt from the discards under the top card, "
            "shuffled.",
    "FA-P21": "§6.5 REDEAL: every active hand is gathered and dealt out again.",
    "FA-P22": "§6.5 `redeal_deal_order = \"play_direction\"`: the redeal starts at the next "
            "player in the direction of play.",
    "FA-P23": "§6.6 A forced Bomb: a responder discards a 0.",
    "FA-P24": "§6.6 A forced Bomb: a responder without a 0 loses a life.",
    "FA-P25": "§6.6 `bomb_response = \"optional\"`: a Bomb waits for its responders' answers.",
    "FA-P26": "§6.6 An optional Bomb: a responder answers with a 0 (`respond 0`).",
    "FA-P27": "§6.6 An optional Bomb: a responder declines and loses a life.",
    "FA-P28": "§6.2 A Bomb as the player's last card: the Bomb's effect applies, then the round "
            "ends (FA-11).",
    "FA-P29": "§6.7 A player loses its last life: it is out at once, its hand under the discard "
            "pile.",
    "FA-P30": "§6.7 Team play: a team loses a life.",
    "FA-P31": "§6.7 Team play: a team with no lives left loses a life again; it stays at 0.",
    "FA-P32": "§6.8 `flip_ends_turn = false`: a player who flips and survives plays again from 0.",
    "FA-P33": "§7.1 A player runs out of cards: the round ends and the others lose a life.",
    "FA-P34": "§7.1 Several players run out of cards at once.",
    "FA-P35": "§7.1 The actor did not go out: the new dealer is the first player out of cards "
            "after it.",
    "FA-P36": "§7.1 Team play: both teams have a player out of cards; both lose a life.",
    "FA-P37": "§7.1 The game goes on: the next round is dealt by the player who went out.",
    "FA-P38": "§7.3 One active player is left: it wins.",
    "FA-P39": "§7.3 Several players are eliminated in one batch: they share a rank.",
    "FA-P40": "§7.3 Team play: a team has no lives left; the other team wins.",
    "FA-P41": "§7.3 Team play: both teams lose their last life in one batch; a draw.",
    "FA-P42": "§7.4 `sudden_death`: a batch with an elimination ends the game.",
    "FA-P43": "§7.4 Sudden death: survivors with equal lives are ranked by the sum of the number "
            "cards in hand.",
    "FA-P44": "§7.4 Sudden death: survivors equal in lives and in hand sums share a rank.",
    "FA-P45": "§7.5 The action cap ends the game: the players still in are ranked by lives.",
    "FA-P46": "§7.5 The action cap ends the game while an optional Bomb awaits answers: the Bomb "
            "is dropped.",
    "FA-P47": "§7.5 Team play at the action cap: the team with more lives wins (FA-26).",
    "FA-P48": "§7.5 Team play at the action cap with equal team lives: a draw.",
    "FA-P49": "§7.5 At the action cap, players still in with equal lives share a rank.",
}

# §2 Card notation and deck order ----------------------------------------------

#: Every card code, in the canonical kind order (§2.2).
KINDS = ["0", "1", "2", "3", "4", "5", "6", "7", "D1", "D2", "PASS", "REV", "SKIP",
         "=21", "=10", "=0", "REDEAL", "BOMB"]
NUMBERS = {"0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7}

#: How many of each card a deck profile holds, in kind order (§1, FA-1).
PROFILES = {
    "hasbro77": [8, 8, 8, 8, 8, 4, 2, 1, 2, 2, 4, 6, 4, 5, 2, 3, 1, 1],
    "alt75": [8, 8, 8, 8, 8, 4, 2, 1, 2, 2, 4, 2, 6, 5, 2, 3, 1, 1],
}


def is_number(card: str) -> bool:
    """Number cards are 0..7; every other card, ``=0`` included, is wild."""
    return card in NUMBERS


def kind_order(card: str) -> int:
    """Position of a card in the canonical kind order (§2.2)."""
    return KINDS.index(card)


# §3 State ----------------------------------------------------------------------


class State(ReferenceState):
    """A 5 Alive game. Cards are their code strings throughout."""

    GAME_ID = GAME_ID

    def __init__(self, players: int, params: dict[str, Any], seed: int, deck: Optional[list[str]]):
        self.players = players
        self.params = params
        self.rng = SplitMix64(seed)
        self.teams = params["team_play"]
        start = params["lives"]
        self.lives: Optional[list[int]] = None if self.teams else [start] * players
        self.team_lives: Optional[list[int]] = [start, start] if self.teams else None
        self.round = 1
        self.dealer = params["first_dealer"]
        self.dir = 1
        self.current: Optional[int] = None
        self.phase = "play"
        self.total = 0
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.draw_pile: list[str] = []
        self.discard_pile: list[str] = []
        self.pending_bomb: Optional[dict[str, Any]] = None
        self.elimination_log: list[list[int]] = []
        self.action_count = 0
        self.result: Optional[dict[str, Any]] = None
        self._history: list[str] = []
        self.round_start = 0
        self._start_round(deck)

    # §3.1 Seats and direction ---------------------------------------------------

    def is_active(self, seat: int) -> bool:
        """In team play nobody is eliminated; otherwise a seat with lives is active."""
        return self.teams or self.lives[seat] > 0

    def active_seats(self) -> list[int]:
        return [s for s in range(self.players) if self.is_active(s)]

    def next_active(self, seat: int, direction: int) -> int:
        """The first active seat after ``seat`` going in ``direction``."""
        for step in range(1, self.players + 1):
            other = (seat + step * direction) % self.players
            if self.is_active(other):
                return other
        raise AssertionError("no active seat")

    def others(self, seat: int) -> list[int]:
        """The other active players, from the next one in the direction of play."""
        order = []
        other = self.next_active(seat, self.dir)
        while other != seat and other not in order:
            order.append(other)
            other = self.next_active(other, self.dir)
        return order

    def targets(self, seat: int) -> list[int]:
        """Who a D1/D2/BOMB affects: the others, minus teammates if they are spared."""
        order = self.others(seat)
        if self.teams and not self.params["team_wilds_hit_teammates"]:
            order = [s for s in order if s % 2 != seat % 2]
        return order

    # §4 Setup, deal and who starts ------------------------------------------------

    def _start_round(self, deck: Optional[list[str]] = None) -> None:
        """§4.2: reset, shuffle (or take the explicit deck), deal, pick the opener."""
        if self.params["reset_direction_each_round"] or self.round == 1:
            self.dir = 1
        elif self.dir == -1:
            fired("FA-P2")
        if self.round == 1:
            fired("FA-P1")
        self.total = 0
        self.discard_pile = []
        self.hands = [[] for _ in range(self.players)]
        if deck is None:
            deck = canonical_deck(self.players, self.params)
            self.rng.shuffle(deck)
        deck = list(deck)
        order = self._dealing_order(self.next_active(self.dealer, 1), 1)
        for _ in range(self.params["hand_size"]):
            for seat in order:
                self.hands[seat].append(deck.pop(0))
        self.draw_pile = deck
        self.current = self.next_active(self.dealer, self.dir)
        self.phase = "play"
        self.round_start = len(self._history)

    def _dealing_order(self, first: int, direction: int) -> list[int]:
        """The active seats, starting with ``first`` and going in ``direction``."""
        order = [first]
        while len(order) < len(self.active_seats()):
            order.append(self.next_active(order[-1], direction))
        return order

    # §5 Turn structure and legal actions -----------------------------------------

    def current_player(self) -> Optional[int]:
        return None if self.phase == "game_over" else self.current

    def legal_actions(self) -> list[str]:
        if self.phase == "game_over":
            return []
        hand = self.hands[self.current]
        if self.phase == "bomb_response":
            return (["respond 0"] if "0" in hand else []) + ["decline"]
        plays = [f"play {card}" for card in self._playable()]
        if not plays or self.params["allow_voluntary_flip"]:
            return [*plays, "flip"]
        return plays

    def _fits(self, card: str) -> bool:
        """A wild card always fits; a number only if the total stays at 21 or less."""
        return not is_number(card) or self.total + NUMBERS[card] <= 21

    def _playable(self) -> list[str]:
        """§5.3: the kinds the player to act may play, in kind order: every wild
        card it holds, and the numbers it holds that keep the total at 21 or less."""
        hand = self.hands[self.current]
        return [card for card in KINDS if card in hand and self._fits(card)]

    def _play_reason(self, card: str) -> str:
        """Why playing ``card`` is illegal now."""
        if card not in self.hands[self.current]:
            return f"card {card} is not in its hand"
        return f"{card} would take the total {self.total} over 21"

    def illegal_reason(self, action: str) -> str:
        verb, _, arg = action.partition(" ")
        if self.phase == "bomb_response":
            if action == "respond 0":
                return "it holds no 0 card to answer the Bomb with"
            return "a Bomb awaits its answer: respond 0 or decline"
        if action in ("respond 0", "decline"):
            return "no Bomb awaits an answer"
        if verb == "play" and arg in KINDS:
            return self._play_reason(arg)
        if action == "flip":
            return "it can play a card, and only a player who cannot may flip"
        return "not an action of five_alive (play K, flip, respond 0, decline)"

    def _apply_unchecked(self, action: str) -> None:
        self._history.append(action)
        verb, _, arg = action.partition(" ")
        if verb == "play":
            self._play_card(self.current, arg)
        elif verb == "flip":
            self._flip(self.current)
        else:
            self._bomb_answer(self.current, verb == "respond")
        self.action_count += 1
        self._check_cap()

    # §6.1 Playing a card ----------------------------------------------------------

    def _play_card(self, player: int, card: str) -> None:
        """§6.1 steps 1-6: play the card, apply its effect, then the end checks."""
        self.hands[player].remove(card)
        self.discard_pile.append(card)
        if counting_now():
            self._note_card(player, card)
        batch: list[int] = []
        if card == "BOMB" and self.params["bomb_response"] == "optional":
            self._start_optional_bomb(player)
            return
        passes_from = self._card_effect(player, card, batch)
        self._after_effect(player, passes_from, batch)

    def _after_effect(self, player: int, passes_from: int, batch: list[int]) -> None:
        """§6.1 steps 3-6: sudden death, game over, going out, next player."""
        if self._game_ends_after(batch):
            return
        gone_out = [s for s in self.active_seats() if not self.hands[s]]
        if gone_out:
            self._end_round(player, gone_out)
        else:
            self.current = self.next_active(passes_from, self.dir)

    # §6.2 Card effects ------------------------------------------------------------

    def _note_card(self, player: int, card: str) -> None:
        """The rule points of a card's effect that the card and the table decide."""
        two = len(self.active_seats()) == 2
        if is_number(card):
            fired("FA-P5")
            if self.total + NUMBERS[card] == 21:
                fired("FA-P6")
        points = {"=21": ["FA-P7"], "=10": ["FA-P8"], "=0": ["FA-P9"], "PASS": ["FA-P10"],
                  "REV": ["FA-P11", "FA-P12"] if two else ["FA-P11"],
                  "SKIP": ["FA-P13", "FA-P14"] if two else ["FA-P13"],
                  "D1": ["FA-P15"], "D2": ["FA-P16"]}
        for point in points.get(card, []):
            fired(point)
        spared = self.teams and not self.params["team_wilds_hit_teammates"]
        if spared and card in ("D1", "D2", "BOMB"):
            fired("FA-P17")
        if card == "BOMB" and not self.hands[player]:
            fired("FA-P28")

    def _card_effect(self, player: int, card: str, batch: list[int]) -> int:
        """§6.2. Returns the seat the turn passes on from: the player, or for SKIP
        the skipped seat (FA-19). The next player is worked out afterwards, in the
        direction after the effect and after any eliminations."""
        if card == "SKIP":
            return self.next_active(player, self.dir)
        if is_number(card):
            self.total += NUMBERS[card]
        elif card == "=21":
            self.total = 21
        elif card == "=10":
            self.total = 10
        elif card == "=0":
            self.total = 0
        elif card == "REV":
            self.dir = -self.dir
        elif card in ("D1", "D2"):
            for seat in self.targets(player):
                for _ in range(1 if card == "D1" else 2):
                    self._draw(seat)
        elif card == "REDEAL":
            self.total = 0
            if self.hands[player]:
                self._redeal(player)
            else:
                fired("FA-P18")
        elif card == "BOMB":
            for seat in self.targets(player):
                fired("FA-P23" if "0" in self.hands[seat] else "FA-P24")
                self._answer_bomb(seat, "0" in self.hands[seat], batch)
            self.total = 0
        # PASS has no effect at all (FA-21).
        return player

    # §6.3-6.4 Drawing and rebuilding the draw pile ----------------------------------

    def _draw(self, seat: int) -> None:
        """§6.3: one card from the top; rebuild first if the pile is empty."""
        if not self.draw_pile:
            self._rebuild_draw_pile()
        if self.draw_pile:
            self.hands[seat].append(self.draw_pile.pop(0))
        else:
            fired("FA-P19")

    def _rebuild_draw_pile(self) -> None:
        """§6.4 (FA-17): everything under the top discard, shuffled bottom first."""
        cards = self.discard_pile[:-1]
        if cards:
            fired("FA-P20")
            self.rng.shuffle(cards)
            self.draw_pile = cards
            self.discard_pile = self.discard_pile[-1:]

    # §6.5 Redeal --------------------------------------------------------------------

    def _redeal(self, player: int) -> None:
        """§6.5 (FA-13): gather every active hand, sort, shuffle, deal them all out."""
        fired("FA-P21")
        gathered = [card for seat in self.active_seats() for card in self.hands[seat]]
        gathered.sort(key=kind_order)
        self.rng.shuffle(gathered)
        if self.params["redeal_deal_order"] == "play_direction":
            fired("FA-P22")
            order = self._dealing_order(self.next_active(player, self.dir), self.dir)
        else:
            order = self._dealing_order(self.next_active(player, 1), 1)
        for seat in order:
            self.hands[seat] = []
        for i, card in enumerate(gathered):
            self.hands[order[i % len(order)]].append(card)

    # §6.6 Bomb ------------------------------------------------------------------------

    def _answer_bomb(self, seat: int, with_zero: bool, batch: list[int]) -> None:
        """One responder: discard a single 0 (never =0, FA-9) or lose a life."""
        if with_zero:
            self.hands[seat].remove("0")
            self.discard_pile.append("0")
        else:
            self._lose_life(seat, batch)

    def _start_optional_bomb(self, bomber: int) -> None:
        """Optional mode: the responders answer one action at a time."""
        fired("FA-P25")
        responders = self.targets(bomber)
        self.pending_bomb = {"bomber": bomber, "responders": responders, "index": 0,
                             "eliminated": []}
        self.phase = "bomb_response"
        self.current = responders[0]

    def _bomb_answer(self, seat: int, respond: bool) -> None:
        """``respond 0`` or ``decline``; after the last one the Bomb completes."""
        bomb = self.pending_bomb
        fired("FA-P26" if respond else "FA-P27")
        self._answer_bomb(seat, respond, bomb["eliminated"])
        bomb["index"] += 1
        if bomb["index"] < len(bomb["responders"]):
            self.current = bomb["responders"][bomb["index"]]
            return
        self.pending_bomb = None
        self.phase = "play"
        self.total = 0
        self._after_effect(bomb["bomber"], bomb["bomber"], bomb["eliminated"])

    # §6.7 Losing a life -------------------------------------------------------------

    def _lose_life(self, seat: int, batch: list[int]) -> None:
        """One life off the seat (or its team); at 0 the seat is out at once and its
        hand goes to the bottom of the discard pile (FA-18)."""
        if self.teams:
            team = seat % 2
            fired("FA-P30" if self.team_lives[team] > 0 else "FA-P31")
            self.team_lives[team] = max(0, self.team_lives[team] - 1)
            return
        self.lives[seat] -= 1
        if self.lives[seat] == 0:
            fired("FA-P29")
            self.discard_pile = self.hands[seat] + self.discard_pile
            self.hands[seat] = []
            batch.append(seat)

    # §6.8 Flip ---------------------------------------------------------------------

    def _flip(self, player: int) -> None:
        """Lose a life, keep the hand, total back to 0 (FA-5, FA-6)."""
        fired("FA-P3" if not self._playable() else "FA-P4")
        batch: list[int] = []
        self._lose_life(player, batch)
        self.total = 0
        if self._game_ends_after(batch):
            return
        if self.params["flip_ends_turn"] or not self.is_active(player):
            self.current = self.next_active(player, self.dir)
        else:
            fired("FA-P32")

    # §7.1 Round end -----------------------------------------------------------------

    def _end_round(self, actor: int, gone_out: list[int]) -> None:
        """Everyone else loses a life (teams: the other team), then a new deal by the
        player who went out (FA-4, FA-12)."""
        fired("FA-P33")
        if len(gone_out) > 1:
            fired("FA-P34")
        if actor not in gone_out:
            fired("FA-P35")
        if self.teams and {s % 2 for s in gone_out} == {0, 1}:
            fired("FA-P36")
        batch: list[int] = []
        if self.teams:
            for team in (0, 1):
                if any(s % 2 == team for s in gone_out):
                    self._lose_life(1 - team, batch)
        else:
            for seat in self.active_seats():
                if seat not in gone_out:
                    self._lose_life(seat, batch)
        if self._game_ends_after(batch):
            return
        dealer = actor
        while dealer not in gone_out:
            dealer = self.next_active(dealer, self.dir)
        self.dealer = dealer
        self.round += 1
        fired("FA-P37")
        self._start_round()

    # §7.3-7.4 Game end ----------------------------------------------------------------

    def _game_ends_after(self, batch: list[int]) -> bool:
        """Sudden death, then the standard end; records the batch's eliminations."""
        if batch:
            self.elimination_log.append(list(batch))
            if len(batch) > 1:
                fired("FA-P39")
        if self.params["sudden_death"] and batch:
            fired("FA-P42")
            ranking = self._sudden_death_ranking(batch)
            lives = [self.lives[s] for s in self.active_seats()]
            if len(set(lives)) < len(lives):
                fired("FA-P43")
            if any(len(group) > 1 for group in ranking[:-1]):
                fired("FA-P44")
            self._finish("SUDDEN_DEATH", ranking)
        elif self.teams and 0 in self.team_lives:
            if self.team_lives == [0, 0]:
                fired("FA-P41")
                self._finish("TEAM_DRAW", [list(range(self.players))])
            else:
                fired("FA-P40")
                winner = self.team_lives.index(max(self.team_lives))
                self._finish("TEAM", self._team_groups(winner))
        elif not self.teams and len(self.active_seats()) <= 1:
            fired("FA-P38")
            self._finish("LAST_STANDING", [self.active_seats(), *self._eliminated_groups()])
        return self.phase == "game_over"

    def _team_groups(self, better_team: int) -> list[list[int]]:
        seats = range(self.players)
        return [[s for s in seats if s % 2 == better_team],
                [s for s in seats if s % 2 != better_team]]

    def _eliminated_groups(self) -> list[list[int]]:
        """Eliminated players, the latest batch first; one batch shares a rank."""
        return [sorted(batch) for batch in reversed(self.elimination_log)]

    def _sudden_death_ranking(self, batch: list[int]) -> list[list[int]]:
        """FA-23: more lives, then the lower sum of number cards in hand."""
        def key(seat: int) -> tuple[int, int]:
            hand_sum = sum(NUMBERS[c] for c in self.hands[seat] if is_number(c))
            return (-self.lives[seat], hand_sum)

        return [*_group_by(self.active_seats(), key), sorted(batch)]

    def _finish(self, reason: str, ranking: list[list[int]]) -> None:
        self.phase = "game_over"
        self.current = None
        self.pending_bomb = None
        self.result = {"reason": reason, "ranking": ranking}

    def scores(self) -> list[int]:
        """Lives left per seat; in team play each seat shows its team's lives."""
        if self.teams:
            return [self.team_lives[s % 2] for s in range(self.players)]
        return list(self.lives)

    def final_placements(self) -> list[int]:
        placements = [0] * self.players
        better = 0
        for group in self.result["ranking"]:
            for seat in group:
                placements[seat] = 1 + better
            better += len(group)
        return placements

    def rounds(self) -> int:
        """Rounds dealt so far."""
        return self.round

    # §7.5 Termination ---------------------------------------------------------------

    def _check_cap(self) -> None:
        """FA-26: past ``max_actions`` the game ends; a pending Bomb is dropped."""
        if self.phase == "game_over" or self.action_count < self.params["max_actions"]:
            return
        if self.pending_bomb:
            fired("FA-P46")
        if self.pending_bomb and self.pending_bomb["eliminated"]:
            self.elimination_log.append(list(self.pending_bomb["eliminated"]))
            if len(self.pending_bomb["eliminated"]) > 1:
                fired("FA-P39")
        if self.teams:
            a, b = self.team_lives
            if a == b:
                fired("FA-P48")
                ranking = [list(range(self.players))]
            else:
                fired("FA-P47")
                ranking = self._team_groups(0 if a > b else 1)
        else:
            fired("FA-P45")
            groups = _group_by(self.active_seats(), lambda s: -self.lives[s])
            if any(len(group) > 1 for group in groups):
                fired("FA-P49")
            ranking = [*groups, *self._eliminated_groups()]
        self._finish("CAP", ranking)

    # Observation and JSON -------------------------------------------------------------

    def observation(self, seat: int) -> dict[str, Any]:
        """The seat's own hand, every hand size, the draw pile's size, and all that
        is public (FA-27); the history is the current round's only."""
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} does not exist; seats are 0 to {self.players - 1}")
        public = self._public_fields()
        public.update({
            "seat": seat,
            "hand": list(self.hands[seat]),
            "hand_sizes": [len(hand) for hand in self.hands],
            "draw_size": len(self.draw_pile),
            "history": self._history[self.round_start:],
        })
        return public

    def _public_fields(self) -> dict[str, Any]:
        return {
            "game": GAME_ID,
            "players": self.players,
            "params": dict(self.params),
            "round": self.round,
            "dealer": self.dealer,
            "dir": self.dir,
            "current": self.current_player(),
            "phase": self.phase,
            "total": self.total,
            "lives": None if self.lives is None else list(self.lives),
            "team_lives": None if self.team_lives is None else list(self.team_lives),
            "discard_pile": list(self.discard_pile),
            "pending_bomb": _copy_bomb(self.pending_bomb),
            "elimination_log": [list(b) for b in self.elimination_log],
            "action_count": self.action_count,
            "result": None if self.result is None else {
                "reason": self.result["reason"],
                "ranking": [list(g) for g in self.result["ranking"]],
            },
        }

    def to_dict(self) -> dict[str, Any]:
        data = self._public_fields()
        data.update({
            "rng": self.rng.state,
            "hands": [list(hand) for hand in self.hands],
            "draw_pile": list(self.draw_pile),
            "history": list(self._history),
            "round_start": self.round_start,
        })
        return data


def _group_by(seats: list[int], key: Any) -> list[list[int]]:
    """Seats in groups of equal ``key``, the smallest key first, seats ascending."""
    groups: list[list[int]] = []
    for value in sorted({key(s) for s in seats}):
        groups.append([s for s in seats if key(s) == value])
    return groups


def _copy_bomb(bomb: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
    if bomb is None:
        return None
    return {"bomber": bomb["bomber"], "responders": list(bomb["responders"]),
            "index": bomb["index"], "eliminated": list(bomb["eliminated"])}


# §8 Variants and config keys -----------------------------------------------

VARIANTS = [
    Bool("allow_seven_players", False),
    Choice("deck_profile", ["hasbro77", "alt75"]),
    Int("lives", 5, low=1, high=1000),
    Int("hand_size", 10, low=1),
    Int("first_dealer", 0, low=0),
    Bool("reset_direction_each_round", True),
    Bool("allow_voluntary_flip", False),
    Bool("flip_ends_turn", True),
    Choice("bomb_response", ["forced", "optional"]),
    Choice("redeal_deal_order", ["clockwise_from_left", "play_direction"]),
    Bool("sudden_death", False),
    Bool("team_play", False),
    Bool("team_wilds_hit_teammates", True),
    Int("max_actions", 10000, low=1, high=1_000_000_000),
]


def check_config(players: int, params: dict[str, Any]) -> None:
    """The cross-key checks of §8."""
    if players == 7 and not params["allow_seven_players"]:
        raise InvalidParamsError("players: 7 players need allow_seven_players = true")
    if params["first_dealer"] >= players:
        raise InvalidParamsError(
            f"first_dealer: must be a seat from 0 to {players - 1}, got {params['first_dealer']}"
        )
    if params["team_play"] and players not in (4, 6):
        raise InvalidParamsError(f"team_play: needs 4 or 6 players, got {players}")
    if params["team_play"] and params["sudden_death"]:
        raise InvalidParamsError("sudden_death: cannot be combined with team_play")
    deck_size = sum(PROFILES[params["deck_profile"]])
    if params["hand_size"] * players > deck_size:
        raise InvalidParamsError(
            f"hand_size: {params['hand_size']} cards for {players} players is more than "
            f"the {deck_size}-card deck"
        )


def canonical_deck(players: int, params: dict[str, Any]) -> list[str]:
    """The profile's cards in canonical kind order (§2.2)."""
    counts = PROFILES[params["deck_profile"]]
    return [card for card, count in zip(KINDS, counts) for _ in range(count)]
