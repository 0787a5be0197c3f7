//! Take 5 (6 nimmt!), as specified in `docs/rules/take5.md`.
//!
//! 104 cards carry 1–7 bullheads. Each turn every seat commits a card face down
//! (asked in seat order, T5-8); the cards are revealed and placed lowest first on
//! the row whose last card is the highest below them. A sixth card takes the
//! row; a card lower than every row end lets its owner take any row (T5-6).
//! After ten turns the heads taken are scored; the game ends after the round in
//! which someone reaches `end_score` (T5-1, T5-2) and the lowest total wins (T5-3).
//!
//! Representation: hands, piles, rows and unused cards are 128-bit sets (bit c
//! = card c; a row always ascends, so its set read lowest first is the row in
//! order), and actions are codes: `play c` = c, `take r` = 128 + r.
//!
//! Files: `rules.rs` (the rules in the rule book's order, beside
//! `python/cardref/reference/take5.py`), `json.rs` (action texts, observation,
//! state JSON), `bots.rs` (the random and heuristic bots), `search.rs`
//! (determinization and rollouts), `tests.rs`.

mod bots;
mod json;
mod rules;
mod search;
#[cfg(test)]
mod tests;

pub use rules::{heads, Deck, EndRule, Params, TooLowChoice};

use crate::points::{Count, Uncounted};
use crate::game::{Action, Error, Game, GameSpec};
use crate::rng::SplitMix64;

/// Most seats at a table.
pub const MAX_PLAYERS: usize = 10;
const TAKE: Action = 128;
const ROWS: usize = 4;
/// A row's most cards: a sixth card takes the row (§6.3).
const ROW_CAPACITY: u32 = 5;
const TURNS: u8 = 10;

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Seats commit a card each, in seat order.
    Commit,
    /// The owner of a too-low card picks the row it takes.
    ChooseRow,
    /// Someone reached the end score (or the round limit was hit).
    GameOver,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Commit => "commit",
            Phase::ChooseRow => "choose_row",
            Phase::GameOver => "game_over",
        }
    }
}

/// A Take 5 game in progress.
#[derive(Debug, Clone)]
pub struct Take5<C: Count = Uncounted> {
    params: Params,
    rng: SplitMix64,
    round: u32,
    turn: u8,
    phase: Phase,
    to_act: u8,
    /// Each row's cards (§6.1 only ever appends a higher card); a row's
    /// length is its count of cards, so no separate length is kept in step.
    rows: [u128; ROWS],
    /// Each row's last, highest card, row r in byte r: what `target_row`
    /// compares against, packed so that a turn's placements keep it in a
    /// register (each placement's row depends on the ends the last one left).
    row_ends: u32,
    hands: [u128; MAX_PLAYERS],
    committed: [u8; MAX_PLAYERS],
    revealed: [(u8, u8); MAX_PLAYERS],
    next_to_place: u8,
    piles: [u128; MAX_PLAYERS],
    unused: u128,
    scores: [i64; MAX_PLAYERS],
    round_scores: Vec<[i64; MAX_PLAYERS]>,
    history: Vec<Action>,
    round_start: usize,
    /// The rule points fired (only a counted state keeps them; `crate::points`).
    count: C,
}

impl<C: Count> Game for Take5<C> {
    const SPEC: GameSpec = GameSpec {
        id: "take5",
        min_players: 2,
        max_players: MAX_PLAYERS,
        default_players: 4,
        teams: &[],
        rule_prefix: "T5",
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
