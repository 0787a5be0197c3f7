//! 100 (One Hundred), as specified in `docs/rules/hundred.md`.
//!
//! 3–12 players (2 with `allow_two_players`) play from one 52-card deck, or two
//! for 7 or more (HU-12), each with 3 chips and a hand of 3. In turn a player
//! plays one card onto the pile and draws. The black aces set the pile value to
//! any 0–100 (`play AS 57`); red aces add 1 (HU-1); 2♠ doubles (HU-17); other 2s,
//! 3s, 5♠/5♣ and 6–9 add their rank (HU-2); 4s reverse the direction (HU-15);
//! 5♥/5♦ take 5 and jacks 10, not below 0 (HU-3); tens set 100; Q♥ sets 0; other
//! queens add 10; kings add nothing. A play above 100 busts (HU-5) and may only be
//! made when every card in hand busts (HU-6). A bust costs a chip and, by
//! default, restarts the value at 0 (HU-7, `bust_rule`). An empty stock is rebuilt
//! from the pile under its top card (HU-11). A seat without chips is out, its hand
//! going under the pile (HU-10); the last seat with chips wins, and
//! `max_actions` caps the game (HU-18).
//!
//! Representation: cards are `u8` codes 0..52 in canonical order (suit × 13 +
//! rank); the hands share one fixed array (seat s from `s × stride`, the stride 8
//! for hands of up to 8 cards, so that each is one 8-byte word), stock and
//! pile are fixed arrays (the stock stored top last, so a draw is a pop); the
//! distinct cards of each hand form a 52-bit set kept along with the hand, and
//! static tables per `red_ace` give each card's effect and the set of cards
//! safe on each value, so the playable cards are one AND; the active seats are
//! a bit mask, and each seat's next active seat either way a table; an action is
//! `card + 64 × (X + 1)` for an ace choosing X, plain `card` otherwise. Nothing is
//! allocated while playing except the history (sized for the game) and the final
//! ranking.
//!
//! Files: `rules.rs` (the rules in the rule book's order, beside
//! `python/cardref/reference/hundred.py`), `json.rs` (action texts,
//! observation, state JSON), `bots.rs` (the random and heuristic bots),
//! `search.rs` (determinization and rollouts), `tests.rs`.

mod bots;
mod json;
mod rules;
mod search;
#[cfg(test)]
mod tests;

pub use json::{card_code, parse_card};
pub use rules::{BustRule, NumDecks, Params, RedAce};

use crate::points::{Count, Uncounted};
use crate::game::{Action, Error, Game, GameSpec};
use crate::rng::SplitMix64;
use rules::CardTable;

/// Most seats at a table.
pub const MAX_PLAYERS: usize = 12;
/// The ring of the last plays' seats: a power of two (so the place of a play
/// is a mask of its index) with room for a round of `MAX_PLAYERS`.
const RECENT_RING: usize = 16;
const MAX_CARDS: usize = 104;
const LIMIT: i64 = 100;
/// With `allow_negative` the rule book sets no floor; the engines stop the value
/// here so that doubling a negative value stays finite (HU-22).
pub const NEGATIVE_FLOOR: i64 = -1_000_000_000;
const VALUE_STEP: Action = 64;
/// `slot_bust` of a slot that was never held through a forced bust.
const NO_BUST: u8 = u8::MAX;

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// Why the game ended (§7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// One seat is left with chips.
    LastStanding,
    /// `max_actions` was reached.
    Cap,
}

impl Reason {
    fn name(self) -> &'static str {
        match self {
            Reason::LastStanding => "LAST_STANDING",
            Reason::Cap => "CAP",
        }
    }
}

/// A game of 100 in progress.
#[derive(Debug, Clone)]
pub struct Hundred<C: Count = Uncounted> {
    params: Params,
    /// `params.cards()`, looked up once.
    cards: &'static CardTable,
    rng: SplitMix64,
    chips: [i64; MAX_PLAYERS],
    /// Seat s's hand is `hands[s·stride ..]`: a hand never holds more than
    /// `hand_size` cards, and `hand_size·n < 52·decks` (§8), or `8·n` with
    /// n at most 12, makes them all fit.
    hands: [u8; MAX_CARDS],
    /// [`hand_stride`] of `params`, kept at hand.
    stride: usize,
    /// `params.floor()`, kept at hand.
    floor: i64,
    hand_len: [u8; MAX_PLAYERS],
    /// Per seat, the distinct cards of its hand (HU-13), kept up to date with
    /// the hand so that the random bot need not gather them.
    hand_sets: [u64; MAX_PLAYERS],
    /// Per hand slot, what every seat has seen that constrains its card (for
    /// [`crate::game::Search::resample`]): the stock generation it was received from
    /// (`generation` at the time) ...
    slot_gen: [u8; MAX_CARDS],
    /// ... and, if it was held through a forced bust, the lowest value at which
    /// that happened ([`NO_BUST`] otherwise): the card busts at that value.
    slot_bust: [u8; MAX_CARDS],
    /// One bit per seat whose hand may hold a slot with a bust mark (none
    /// without its bit).
    marked: u16,
    /// The stock's generation: +1 at each deal, and at each rebuild of a
    /// one-deck stock (with two decks a played code may come from either
    /// generation, so rebuilds are not told apart). Not in the JSON: a loaded
    /// state has every slot in the stock's generation and unconstrained.
    generation: u8,
    /// The stock with its top card last.
    stock: [u8; MAX_CARDS],
    stock_len: u8,
    /// The pile with its top card last.
    pile: [u8; MAX_CARDS],
    pile_len: u8,
    value: i64,
    dir: i8,
    current: u8,
    dealer: u8,
    deal_number: u64,
    elim: [u8; MAX_PLAYERS],
    elim_len: u8,
    action_count: u64,
    result: Option<(Reason, Vec<Vec<usize>>)>,
    /// One bit per seat with chips (`chips[s] > 0`); set with [`Self::set_active`].
    active: u16,
    /// `next_active` of every seat, clockwise at `2·seat + 1` and
    /// counterclockwise at `2·seat`: it changes only when a seat drops out.
    next_seat: [u8; 2 * MAX_PLAYERS],
    /// Who made the plays, play j (`history[j]`) at `j % RECENT_RING`: the
    /// last n of them with their actions make the observation's `recent`.
    recent_seats: [u8; RECENT_RING],
    history: Vec<Action>,
    /// The rule points fired (only a counted state keeps them; `crate::points`).
    count: C,
}

impl<C: Count> Game for Hundred<C> {
    const SPEC: GameSpec = GameSpec {
        id: "hundred",
        min_players: 2,
        max_players: MAX_PLAYERS,
        default_players: 5,
        teams: &[],
        rule_prefix: "HU",
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
