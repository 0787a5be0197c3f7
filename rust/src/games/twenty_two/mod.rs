//! Twenty-Two (22), as specified in `docs/rules/twenty_two.md`.
//!
//! One 52-card deck; ranks 2 < … < 10 < J < Q < K < A, suits only make cards
//! distinct; values 2–10 face, J/Q/K 10, A 11 (TT-19). Each hand is dealt from
//! the pool (the 52 cards minus every score-pile card, TT-3), `min(target_size,
//! pool / active)` cards each (TT-1, TT-2), from the first active seat after the
//! dealer (an eliminated dealer still deals, TT-17). Each active seat once may
//! discard up to min(hand, stock) cards face down and draw as many (TT-5).
//! Then tricks: a lead is 1..h-1 cards of one rank (TT-6); a follower plays
//! exactly k cards that beat or equal the bar position by position (TT-7) or are
//! its lowest set (TT-10), free choice by default (TT-11); a set meeting the bar
//! becomes the bar (TT-8, TT-9, TT-12). The bar's holder wins a trick and leads
//! next. In the final one-card trick the highest rank keeps its card as a
//! penalty (ties: TT-14, TT-15); its value sets the next deal size (TT-1). A
//! seat reaching `elimination_score` is out (TT-16); the last seat left wins,
//! or the lowest score among those going out together (TT-18).
//!
//! Representation: a card is `rank * 4 + suit` (0..52), so the bits of a `u64`
//! set ascend in play order (rank, then suit C < D < H < S). Hands, discards and
//! score piles are such sets; the stock is an array, top first. An action code
//! is a card set plus a verb bit: `DISCARD | set` or `PLAY | set`.
//!
//! Files: `rules.rs` (the rules in the rule book's order, beside
//! `python/cardref/reference/twenty_two.py`), `json.rs` (action texts,
//! observation, state JSON), `bots.rs` (the random and heuristic bots),
//! `search.rs` (determinization and rollouts), `tests.rs`.

mod bots;
mod json;
mod rules;
mod search;
#[cfg(test)]
mod tests;

pub use rules::{FirstDealer, FollowRule, LastTrickTie, Params, TiedDealer};

use crate::points::{Count, Uncounted};
use crate::game::{Action, Error, Game, GameSpec};
use crate::rng::SplitMix64;

/// Most seats at a table (TT-20).
pub const MAX_PLAYERS: usize = 6;
/// Most completed non-final tricks in a hand: a hand has at most 11 cards and
/// the final trick needs one.
const MAX_TRICKS: usize = 10;
const NONE: u8 = u8::MAX;
/// Actions reserved for a game's history at the start: a four-player game
/// takes about 300, so most games never grow it.
const HISTORY_CAPACITY: usize = 512;
const DISCARD: Action = 1 << 52;
const PLAY: Action = 1 << 53;
const CARDS: u64 = (1 << 52) - 1;

// ---------------------------------------------------------------------------
// §3 State
// ---------------------------------------------------------------------------

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Each active seat once may discard and draw (§5.1).
    Discard,
    /// Tricks (§5.2).
    Play,
    /// One seat or none left (§7).
    GameOver,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Discard => "discard",
            Phase::Play => "play",
            Phase::GameOver => "game_over",
        }
    }
}

/// A trick: who played which set, in order, and the best set so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Trick {
    leader: u8,
    len: u8,
    seats: [u8; MAX_PLAYERS],
    sets: [u64; MAX_PLAYERS],
    /// The set to beat or equal (empty before the lead).
    bar: u64,
    /// Its player (the winner, once the trick is complete); `NONE` before the lead.
    bar_holder: u8,
}

impl Trick {
    pub(super) fn new(leader: u8) -> Self {
        Trick {
            leader,
            bar_holder: NONE,
            ..Trick::default()
        }
    }

    /// How many cards `seat` played to this trick.
    pub(super) fn played_by(&self, seat: u8) -> u32 {
        (0..self.len as usize)
            .filter(|&i| self.seats[i] == seat)
            .map(|i| self.sets[i].count_ones())
            .sum()
    }
}

/// A Twenty-Two game in progress.
#[derive(Debug, Clone)]
pub struct TwentyTwo<C: Count = Uncounted> {
    params: Params,
    rng: SplitMix64,
    hand_number: u32,
    dealer: u8,
    target_size: u8,
    deal_size: u8,
    /// Bit s set while seat s is in the game.
    active: u8,
    /// Hand in which each seat went out; 0 while active (hands are numbered from 1).
    out_hand: [u32; MAX_PLAYERS],
    piles: [u64; MAX_PLAYERS],
    hands: [u64; MAX_PLAYERS],
    discards: [u64; MAX_PLAYERS],
    /// `stock[stock_top..stock_len]`, top first.
    stock: [u8; 52],
    stock_top: u8,
    stock_len: u8,
    /// `stock_sets[i]` for `stock_top <= i <= stock_len`: the cards of
    /// `stock[stock_top..i]` as a set, filled once per deal, so that a discard
    /// draws its j cards as `stock_sets[top + j] ^ stock_sets[top]`: two
    /// loads, not a loop over the stock. 64 entries: indices masked by 63
    /// need no bounds check.
    stock_sets: [u64; 64],
    phase: Phase,
    to_act: u8,
    trick: Trick,
    /// Completed tricks of this hand (capacity reserved once: no allocation in play).
    tricks: Vec<Trick>,
    /// The previous hand's final trick and the seats that scored in it (a bit set).
    last_trick: Option<(Trick, u8)>,
    history: Vec<Action>,
    /// The rule points fired (only a counted state keeps them; `crate::points`).
    count: C,
}

impl<C: Count> Game for TwentyTwo<C> {
    const SPEC: GameSpec = GameSpec {
        id: "twenty_two",
        min_players: 2,
        max_players: MAX_PLAYERS,
        default_players: 4,
        teams: &[],
        rule_prefix: "TT",
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
