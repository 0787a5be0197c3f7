//! 5 Alive, as specified in `docs/rules/five_alive.md` (FA-n are its ambiguities).
//!
//! A 77-card deck (`hasbro77`) or a 75-card one (`alt75`, FA-1) of number cards
//! `0`..`7` and wild cards `D1 D2 PASS REV SKIP =21 =10 =0 REDEAL BOMB`. Each
//! round the direction resets (FA-4), the deck is shuffled and `hand_size` cards
//! are dealt clockwise from the dealer's left to the active players; the player
//! after the dealer starts. On a turn a player plays a wild card or a number that
//! keeps the running total at 21 or less (FA-7, FA-8); only a player who can play
//! nothing flips: a life lost, total back to 0 (FA-5, FA-6). Numbers add, `=N`
//! sets the total, `REV` turns (FA-20), `SKIP` skips (FA-19), `D1`/`D2` make the
//! others draw (FA-16), rebuilding the draw pile from the discards (FA-17),
//! `REDEAL` deals all hands out again (FA-13, FA-14), `BOMB` costs a life to every
//! other player who cannot answer with a `0` (FA-9..FA-11). Emptying the hand
//! costs everyone else a life and starts a new round (FA-12); a player without
//! lives is out at once (FA-18, FA-22). Variants: sudden death (FA-23), teams
//! (FA-24, FA-25), optional Bomb answers, the flip rules and an action cap (FA-26).
//!
//! Representation: cards are kind indices `0..18` in canonical kind order; hands
//! and piles are fixed arrays (the draw pile stored top card last, so drawing is
//! a pop); a hand also keeps a count per kind and the set of kinds it holds, and
//! the active seats are a bit mask, so that a turn is mostly bit arithmetic;
//! actions are codes: `play K` = kind K, then `flip`, `respond 0`, `decline`.
//!
//! Files: `rules.rs` (the rules in the rule book's order, beside
//! `python/cardref/reference/five_alive.py`), `json.rs` (action texts,
//! observation, state JSON), `bots.rs` (the random and heuristic bots),
//! `search.rs` (determinization: a replay of the round's public history, and
//! rollouts), `tests.rs`.

mod bots;
mod json;
mod rules;
mod search;
#[cfg(test)]
mod tests;

pub use rules::{BombResponse, DeckProfile, Params, RedealDealOrder};

use crate::points::{Count, Uncounted};
use crate::game::{Action, Error, Game, GameSpec};
use crate::rng::SplitMix64;
use serde_json::{json, Value};

/// Most seats at a table (7 only with `allow_seven_players`).
pub const MAX_PLAYERS: usize = 7;
pub(super) const KINDS: usize = 18;
/// Room for every card of the largest deck.
pub(super) const ROOM: usize = 77;
/// Spare bytes after a pile's room, so that 16 cards can be read or moved at
/// once from any position in it.
pub(super) const SLACK: usize = 16;
/// Card codes in canonical kind order (§2.2); a card is its index here.
pub const CODES: [&str; KINDS] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "D1", "D2", "PASS", "REV", "SKIP", "=21", "=10", "=0",
    "REDEAL", "BOMB",
];
pub(super) const D1: u8 = 8;
pub(super) const D2: u8 = 9;
pub(super) const PASS: u8 = 10;
pub(super) const REV: u8 = 11;
pub(super) const SKIP: u8 = 12;
pub(super) const SET21: u8 = 13;
pub(super) const SET10: u8 = 14;
pub(super) const SET0: u8 = 15;
pub(super) const REDEAL: u8 = 16;
pub(super) const BOMB: u8 = 17;
/// Bits 8..18: every wild card kind.
pub(super) const WILD_KINDS: u32 = ((1 << KINDS) - 1) & !0xFF;
pub(super) const FLIP: Action = 18;
pub(super) const RESPOND: Action = 19;
pub(super) const DECLINE: Action = 20;
/// Copies of each kind per deck profile (§1, FA-1).
pub(super) const HASBRO77: [u8; KINDS] = [8, 8, 8, 8, 8, 4, 2, 1, 2, 2, 4, 6, 4, 5, 2, 3, 1, 1];
pub(super) const ALT75: [u8; KINDS] = [8, 8, 8, 8, 8, 4, 2, 1, 2, 2, 4, 2, 6, 5, 2, 3, 1, 1];

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// An ordered list of cards with room for a whole deck; no heap. Only the
/// first `len` cards count (equality too), so emptying it is `len = 0`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pile {
    pub(super) cards: [u8; ROOM + SLACK],
    pub(super) len: u8,
}

impl PartialEq for Pile {
    fn eq(&self, other: &Pile) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Pile {}

impl Pile {
    const EMPTY: Pile = Pile {
        cards: [0; ROOM + SLACK],
        len: 0,
    };

    #[inline]
    pub(super) fn as_slice(&self) -> &[u8] {
        &self.cards[..self.len as usize]
    }

    /// Where the first `card` is, 16 cards at a time: in `x = cards ^
    /// card·0x0101..`, the card's bytes are zero. Every byte is a kind (below
    /// 0x80, stale bytes too), so in `(x | 0x8080..) - 0x0101..` no byte
    /// borrows from the next, and exactly the zero bytes lose their high bit.
    /// The pile must hold the card, so its first copy comes before any stale
    /// byte past `len`: no length check. A hand rarely holds more than 16
    /// cards, so the loop rarely turns.
    #[inline]
    pub(super) fn position(&self, card: u8) -> usize {
        const ONES: u128 = u128::MAX / 255;
        const HIGH: u128 = ONES << 7;
        debug_assert!(self.as_slice().contains(&card));
        let half = u64::from(card) * (u64::MAX / 255);
        let copies = u128::from(half) << 64 | u128::from(half);
        let mut at = 0;
        loop {
            let chunk: [u8; 16] = self.cards[at..at + 16].try_into().unwrap_or_default();
            let x = u128::from_le_bytes(chunk) ^ copies;
            let zero = !((x | HIGH) - ONES) & HIGH;
            if zero != 0 {
                return at + zero.trailing_zeros() as usize / 8;
            }
            at += 16;
        }
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub(super) fn push(&mut self, card: u8) {
        self.cards[self.len as usize] = card;
        self.len += 1;
    }

    #[inline]
    pub(super) fn pop(&mut self) -> u8 {
        self.len -= 1;
        self.cards[self.len as usize]
    }

    /// Removes the card at `i`, keeping the order of the rest: one 16-byte
    /// move when that covers all the cards after it (nearly always).
    #[inline]
    fn remove_at(&mut self, i: usize) {
        let len = self.len as usize;
        if len <= i + 1 + SLACK {
            let after: [u8; SLACK] = self.cards[i + 1..i + 1 + SLACK]
                .try_into()
                .unwrap_or_default();
            self.cards[i..i + SLACK].copy_from_slice(&after);
        } else {
            self.shift_down(i + 1..len);
        }
        self.len -= 1;
    }

    /// Moves `range` one place down (a long hand's removal).
    #[cold]
    fn shift_down(&mut self, range: std::ops::Range<usize>) {
        let to = range.start - 1;
        self.cards.copy_within(range, to);
    }

    /// Puts `cards` under the current ones, order kept.
    pub(super) fn insert_bottom(&mut self, cards: &[u8]) {
        let (len, k) = (self.len as usize, cards.len());
        self.cards.copy_within(0..len, k);
        self.cards[..k].copy_from_slice(cards);
        self.len += k as u8;
    }

    pub(super) fn from_slice(cards: &[u8]) -> Pile {
        let mut pile = Pile::EMPTY;
        pile.cards[..cards.len()].copy_from_slice(cards);
        pile.len = cards.len() as u8;
        pile
    }
}

/// A hand: its cards in order (§2.3) and how many of each kind it holds. The
/// counts follow every change, so what the hand holds is a mask (`kinds`), not
/// a scan of the cards: that is what the legal actions are made of.
///
/// 128 bytes apart (116 used): the hand of the seat to act is found with a
/// shift, not a multiply, at the start of every turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(align(128))]
pub(super) struct Hand {
    pub(super) pile: Pile,
    pub(super) counts: [u8; KINDS],
    /// Bit k set while the hand holds a card of kind k.
    pub(super) kinds: u32,
}

impl Hand {
    const EMPTY: Hand = Hand {
        pile: Pile::EMPTY,
        counts: [0; KINDS],
        kinds: 0,
    };

    pub(super) fn from_slice(cards: &[u8]) -> Hand {
        let mut hand = Hand::EMPTY;
        cards.iter().for_each(|&c| hand.push(c));
        hand
    }

    #[inline]
    pub(super) fn as_slice(&self) -> &[u8] {
        self.pile.as_slice()
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.pile.len as usize
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.pile.is_empty()
    }

    #[inline]
    pub(super) fn contains(&self, card: u8) -> bool {
        self.kinds >> card & 1 == 1
    }

    /// Empties the hand; the bytes past its end are left as they are.
    #[inline]
    pub(super) fn clear(&mut self) {
        self.pile.clear();
        self.counts = [0; KINDS];
        self.kinds = 0;
    }

    #[inline]
    pub(super) fn push(&mut self, card: u8) {
        self.pile.push(card);
        self.counts[card as usize] += 1;
        self.kinds |= 1 << card;
    }

    /// Deals card `seat` of every pass round the table (`passes`, one card
    /// per player each) into the empty hand: its length and kinds are kept in
    /// registers and stored once, not read back after every card.
    #[inline]
    pub(super) fn deal(&mut self, passes: std::slice::ChunksExact<'_, u8>, seat: usize) {
        debug_assert!(self.is_empty());
        let (mut len, mut kinds) = (0, 0);
        for (to, pass) in self.pile.cards.iter_mut().zip(passes) {
            let card = pass[seat];
            *to = card;
            // Indexed, not `get_mut`: a card is a kind, so the check never
            // fails, and the loop body stays one block with no jump.
            self.counts[usize::from(card)] += 1;
            kinds |= 1 << card;
            len += 1;
        }
        self.pile.len = len;
        self.kinds = kinds;
    }

    /// Takes the top `count` cards (1 or 2) of `draw`, which holds them. Two
    /// are copied either way (the hand's slack takes one not taken): the count
    /// costs no branch.
    #[inline]
    pub(super) fn draw_from(&mut self, draw: &mut Pile, count: usize) {
        debug_assert!((1..=2).contains(&count) && usize::from(draw.len) >= count);
        let top = usize::from(draw.len) - 1;
        let (first, second) = (draw.cards[top], draw.cards[top.saturating_sub(1)]);
        let len = self.len();
        self.pile.cards[len] = first;
        self.pile.cards[len + 1] = second;
        let second_taken = count as u8 - 1;
        self.counts[usize::from(first)] += 1;
        self.counts[usize::from(second)] += second_taken;
        self.kinds |= 1 << first | u32::from(second_taken) << second;
        self.pile.len += count as u8;
        draw.len -= count as u8;
    }

    /// Removes the first copy of `card` (§2.3); the hand must hold one (a
    /// legal play, a Bomb answered with a 0).
    #[inline(always)]
    pub(super) fn remove_first(&mut self, card: u8) {
        debug_assert!(self.contains(card));
        self.pile.remove_at(self.pile.position(card));
        self.counts[card as usize] -= 1;
        let gone = u32::from(self.counts[card as usize] == 0);
        self.kinds &= !(gone << card);
    }

    /// Puts `card` in place of the card at `i`.
    pub(super) fn replace(&mut self, i: usize, card: u8) {
        let old = self.pile.cards[i];
        self.counts[old as usize] -= 1;
        if self.counts[old as usize] == 0 {
            self.kinds &= !(1 << old);
        }
        self.pile.cards[i] = card;
        self.counts[card as usize] += 1;
        self.kinds |= 1 << card;
    }
}

/// A short list of seats (a batch, a group, responders).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Seats {
    pub(super) seats: [u8; MAX_PLAYERS],
    pub(super) len: u8,
}

impl Seats {
    pub(super) fn push(&mut self, seat: usize) {
        self.seats[self.len as usize] = seat as u8;
        self.len += 1;
    }

    pub(super) fn as_slice(&self) -> &[u8] {
        &self.seats[..self.len as usize]
    }

    pub(super) fn contains(&self, seat: usize) -> bool {
        self.as_slice().contains(&(seat as u8))
    }

    pub(super) fn sorted(mut self) -> Seats {
        self.seats[..self.len as usize].sort_unstable();
        self
    }

    pub(super) fn to_json(self) -> Value {
        json!(self.as_slice())
    }
}

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Play,
    BombResponse,
    GameOver,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Play => "play",
            Phase::BombResponse => "bomb_response",
            Phase::GameOver => "game_over",
        }
    }
}

/// An optional-mode Bomb waiting for its answers (§6.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PendingBomb {
    bomber: u8,
    responders: Seats,
    index: u8,
    eliminated: Seats,
}

const REASONS: [&str; 5] = ["LAST_STANDING", "SUDDEN_DEATH", "TEAM", "TEAM_DRAW", "CAP"];

/// Why the game ended and the ranking, tied groups best first (§7.3).
#[derive(Debug, Clone, PartialEq, Eq)]
struct GameResult {
    reason: &'static str,
    ranking: Vec<Seats>,
}

/// A 5 Alive game in progress.
#[derive(Debug, Clone)]
pub struct FiveAlive<C: Count = Uncounted> {
    params: Params,
    rng: SplitMix64,
    round: u32,
    dealer: u8,
    dir: i8,
    current: u8,
    phase: Phase,
    total: u8,
    lives: [u32; MAX_PLAYERS],
    team_lives: [u32; 2],
    /// Bit s set while seat s is active (§3.1): follows `lives` (see
    /// `set_active`), so that the turn order is bit arithmetic.
    active: u8,
    /// `next[0][s]`, `next[1][s]`: the first active seat after `s` clockwise,
    /// counter-clockwise. Worked out again whenever `active` changes, which
    /// is rare, so that the turn moves on with one look-up (8 entries: a seat
    /// masked with 7 needs no bounds check).
    next: [[u8; 8]; 2],
    hands: [Hand; MAX_PLAYERS],
    /// Top card last (the reverse of the JSON order).
    draw: Pile,
    /// Top card last.
    discard: Pile,
    pending: Option<PendingBomb>,
    elimination_log: Vec<Seats>,
    action_count: u64,
    result: Option<GameResult>,
    history: Vec<Action>,
    round_start: usize,
    /// The rule points fired (only a counted state keeps them; `crate::points`).
    count: C,
}

impl<C: Count> Game for FiveAlive<C> {
    const SPEC: GameSpec = GameSpec {
        id: "five_alive",
        min_players: 2,
        max_players: MAX_PLAYERS,
        default_players: 4,
        teams: &[],
        rule_prefix: "FA",
        heuristic: true,
        search: true,
    };
    type Params = Params;

    fn drain_points(&mut self, out: &mut [u64]) {
        self.count.drain_into(out);
    }

    fn new_state(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        Self::new(params, seed, deck)
    }
}
