//! Back Alley (Back Alley Bridge, Blooper), as specified in
//! `docs/rules/back_alley.md`: four players in two partnerships (seats 0+2
//! against 1+3) with a 54-card deck, the two jokers being the Big Blooper
//! (`BB`) and the Little Blooper (`LB`).
//!
//! - §4 One deal per schedule entry (by default 25 deals of 13, 12, …, 1, …,
//!   13 cards, BA-19). Cards are dealt one at a time from the dealer's left;
//!   the next card is turned up and fixes trump. A turned joker means no trump:
//!   the holder of the other joker discards it and draws the top stock card
//!   (BA-16, BA-17), or with `joker_upcard = "turn_next"` jokers are moved under
//!   the stock until a standard card shows. The dealer rotates after every deal.
//! - §5.1 Each seat bids once from the dealer's left (BA-1a, BA-27): `pass`, a
//!   number 1..n−1 (BA-2) or `board` (all n tricks), whose level is the number
//!   of earlier boards + 1 (double, triple, quadruple board; BA-3, BA-4).
//! - §6.1 Four passes void the deal (BA-20): same hand size, next dealer; after
//!   `max_consecutive_all_pass` such auctions the hand is abandoned for 0.
//!   Otherwise each team's contract is board (its highest level, BA-5, BA-26) or
//!   the sum of its numbers (BA-8, BA-9). The highest (last) board bidder or
//!   else the first highest number bidder leads (BA-10).
//! - §5.2 Trump-set cards (both jokers, then the trump suit A..2) may not be led
//!   until a trick has contained one, unless the leader bid board or holds only
//!   trumps (BA-11, BA-12, BA-15). Follow the led suit (jokers belong to the
//!   trump suit, BA-13), else play anything (BA-21, BA-22). A led `BB` forces
//!   everyone's highest trump, a led `LB` their lowest (BA-14).
//! - §6.3 The highest trump wins, else the highest card of the led suit; the
//!   winner leads next. Trumps break when a trick holding one is resolved.
//! - §7 A number contract b scores 5b + (t − b) if made, −5b if not (BA-7); a
//!   board of level L scores ±10·n·L (BA-6). After the last deal the higher team
//!   total wins; equal totals draw (BA-23, BA-24).
//! - Determinization for the search bot: `resample` and
//!   `sample_from_observation` deal the hidden cards anew, honouring every
//!   void (and Blooper or trump-lead constraint) shown this deal; rollouts end
//!   with the deal (see `docs/games/back_alley.md`).
//!
//! Representation: cards are `u8` codes in canonical order (suit·13 + rank,
//! `BB` = 52, `LB` = 53), hands are `u64` bitsets, tricks and the stock are
//! fixed arrays. Actions: `play c` = c, `bid pass` = 64, `bid k` = 64 + k,
//! `bid board` = 78.
//!
//! Files: `rules.rs` (the rules in the rule book's order, beside
//! `python/cardref/reference/back_alley.py`), `json.rs` (action texts,
//! observation, state JSON), `bots.rs` (the random and heuristic bots),
//! `search.rs` (determinization and rollouts), `tests.rs`.

mod bots;
mod json;
mod rules;
mod search;
#[cfg(test)]
mod tests;

pub use json::{card_text, parse_card};
pub use rules::{
    BidCap, BoardLead, BoardMultiplier, BoardMultiplierScope, BoardTrumpLeadExemption,
    FirstDealer, JokerExchangeDraw, JokerUpcard, Params, Schedule,
};

use crate::points::{Count, Uncounted};
use crate::game::{Action, Error, Game, GameSpec};
use crate::rng::SplitMix64;

/// Seats at the table: always four, in two partnerships.
pub const PLAYERS: usize = 4;
const DECK: usize = 54;
const BB: u8 = 52;
const LB: u8 = 53;
const JOKERS: u64 = (1 << BB) | (1 << LB);
const ALL_CARDS: u64 = (1 << DECK) - 1;
const MAX_HAND: usize = 13;
const NO_TRUMP: u8 = 4;
/// Bid codes inside the state: 0 = pass, 1..=13 a number, 14 = board.
const PASS: u8 = 0;
const BOARD: u8 = 14;
const BID: Action = 64;
/// Longest explicit schedule accepted (an engine limit, documented as BA-28).
pub const MAX_SCHEDULE: usize = 1000;
/// Bound on the point constants (an engine limit, documented as BA-28).
const POINT_LIMIT: i64 = i32::MAX as i64;

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Each seat bids once, from the dealer's left.
    Bidding,
    /// Tricks are played.
    Play,
    /// The last schedule entry has been played or abandoned.
    GameOver,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Bidding => "bidding",
            Phase::Play => "play",
            Phase::GameOver => "game_over",
        }
    }
}

/// How a deal ended (§6.1, §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DealOutcome {
    Played,
    Redeal,
    Abandoned,
}

impl DealOutcome {
    fn name(self) -> &'static str {
        match self {
            DealOutcome::Played => "played",
            DealOutcome::Redeal => "redeal",
            DealOutcome::Abandoned => "abandoned",
        }
    }
}

/// The public record of a finished deal.
#[derive(Debug, Clone, PartialEq)]
struct DealRecord {
    dealer: u8,
    hand_index: usize,
    hand_size: u8,
    upcard: u8,
    turned: [u8; 2],
    turned_len: u8,
    trump: u8,
    exchange: Option<(u8, u8)>,
    bids: [u8; 4],
    tricks: [u8; 2],
    points: [i64; 2],
    outcome: DealOutcome,
}

/// The automatic joker exchange of a no-trump deal (§4 step 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Exchange {
    seat: u8,
    discarded: u8,
    drawn: u8,
}

/// A Back Alley game in progress.
#[derive(Debug, Clone)]
pub struct BackAlley<C: Count = Uncounted> {
    params: Params,
    rng: SplitMix64,
    phase: Phase,
    hand_index: usize,
    hand_size: u8,
    dealer: u8,
    all_pass_count: i64,
    hands: [u64; PLAYERS],
    upcard: u8,
    turned: [u8; 2],
    turned_len: u8,
    trump: u8,
    exchange: Option<Exchange>,
    stock: [u8; DECK],
    stock_len: u8,
    /// Bids in bidding order; the i-th was made by seat dealer + 1 + i.
    bids: [u8; 4],
    bids_len: u8,
    to_act: u8,
    trick_leader: u8,
    /// Cards of the current trick in play order, from `trick_leader`.
    trick: [u8; 4],
    trick_len: u8,
    /// Completed tricks: (leader, cards in play order, winner).
    completed: [(u8, [u8; 4], u8); MAX_HAND],
    completed_len: u8,
    tricks_won: [u8; PLAYERS],
    trump_broken: bool,
    team_scores: [i64; 2],
    deals: Vec<DealRecord>,
    history: Vec<Action>,
    deal_start: usize,
    /// The rule points fired (only a counted state keeps them; `crate::points`).
    count: C,
}

impl<C: Count> Game for BackAlley<C> {
    const SPEC: GameSpec = GameSpec {
        id: "back_alley",
        min_players: PLAYERS,
        max_players: PLAYERS,
        default_players: PLAYERS,
        teams: &[&[0, 2], &[1, 3]],
        rule_prefix: "BA",
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
