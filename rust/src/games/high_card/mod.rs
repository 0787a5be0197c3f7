//! High Card, a game for the tests only, as specified in
//! `tests/testgame/rules.md`: it is registered like every game (one line in
//! `games/mod.rs`), built only with the `test-game` feature (`cargo test`
//! turns it on), and run by the generic tests of both engines beside its
//! Python twin (`tests/testgame/reference.py`). It shows the least a game
//! needs: a declaration, its rules, its JSON; it declares no heuristic and no
//! search, so it takes the defaults of [`NativeBots`] and [`Search`].
//!
//! Representation: a hand is a set of card numbers (bit c = card c), the
//! stock an array, top first; an action `play c` is the code c.

mod json;
mod rules;
#[cfg(test)]
mod tests;

pub use rules::{Params, Scoring};

use crate::points::{Count, Uncounted};
use crate::game::{Action, Error, Game, GameSpec, NativeBots, Search};
use crate::rng::SplitMix64;

/// Most seats at a table.
const MAX_PLAYERS: usize = 4;
/// Cards per seat in the deck: 6N cards for N players (§1).
const CARDS_PER_SEAT: usize = 6;
/// The most cards in play.
const MAX_CARDS: usize = CARDS_PER_SEAT * MAX_PLAYERS;

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// A game of High Card in progress.
#[derive(Debug, Clone)]
pub struct HighCard<C: Count = Uncounted> {
    params: Params,
    rng: SplitMix64,
    /// Each seat's cards, bit c for card c.
    hands: [u32; MAX_PLAYERS],
    /// The stock, top first: `stock[stock_top..stock_len]`.
    stock: [u8; MAX_CARDS],
    stock_top: usize,
    stock_len: usize,
    /// The current round's plays (seat, card), in order.
    round: [(u8, u8); MAX_PLAYERS],
    round_len: usize,
    /// The cards of the rounds already won.
    played: u32,
    leader: u8,
    to_act: u8,
    over: bool,
    scores: [i64; MAX_PLAYERS],
    history: Vec<Action>,
    /// The rule points fired (only a counted state keeps them; `crate::points`).
    count: C,
}

impl<C: Count> Game for HighCard<C> {
    const SPEC: GameSpec = GameSpec {
        id: "high_card",
        min_players: 2,
        max_players: MAX_PLAYERS,
        default_players: 3,
        teams: &[],
        rule_prefix: "HC",
        heuristic: false,
        search: false,
    };
    type Params = Params;

    fn drain_points(&mut self, out: &mut [u64]) {
        self.count.drain_into(out);
    }

    fn new_state(params: Params, seed: u64, deck: Option<&[String]>) -> Result<Self, Error> {
        Self::new(params, seed, deck)
    }
}

/// The default random bot, which lists the legal actions.
impl<C: Count> NativeBots for HighCard<C> {}

/// No determinization: the search bot does not play High Card.
impl<C: Count> Search for HighCard<C> {}
